#include "host_tools/mpi_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace couplet::tools {

namespace {

void* symbol(void* library, const char* name) {
  void* address = ::dlsym(library, name);
  if (address == nullptr) {
    throw std::runtime_error(std::string("MPI: ") + COUPLET_MPI_LIBRARY + " has no " + name +
                             " (not the Open MPI couplet was built with?)");
  }
  return address;
}

template <typename Function>
void resolve(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(symbol(library, name));
}

// Open MPI's predefined handles are the addresses of its objects
// (OMPI_PREDEFINED_GLOBAL in mpi.h).
template <typename Handle>
void resolve_handle(void* library, const char* object, Handle& handle) {
  handle = static_cast<Handle>(symbol(library, object));
}

MpiLibrary load() {
  // RTLD_GLOBAL: the components MPI_Init loads (mca_*.so) resolve their calls
  // into libmpi against the global scope.
  void* library = ::dlopen(COUPLET_MPI_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) {
    throw std::runtime_error(
        std::string("this run was started by mpirun, but Open MPI's library cannot be "
                    "loaded: ") +
        ::dlerror() + " (Debian: apt-get install libopenmpi3)");
  }
  MpiLibrary mpi{};
  resolve(library, "MPI_Init_thread", mpi.init_thread);
  resolve(library, "MPI_Finalize", mpi.finalize);
  resolve(library, "MPI_Abort", mpi.abort);
  resolve(library, "MPI_Comm_set_errhandler", mpi.comm_set_errhandler);
  resolve(library, "MPI_Comm_rank", mpi.comm_rank);
  resolve(library, "MPI_Comm_size", mpi.comm_size);
  resolve(library, "MPI_Get_processor_name", mpi.get_processor_name);
  resolve(library, "MPI_Error_string", mpi.error_string);
  resolve(library, "MPI_Bcast", mpi.bcast);
  resolve(library, "MPI_Allgatherv", mpi.allgatherv);
  resolve_handle(library, "ompi_mpi_comm_world", mpi.comm_world);
  resolve_handle(library, "ompi_mpi_errors_return", mpi.errors_return);
  resolve_handle(library, "ompi_mpi_byte", mpi.byte);
  resolve_handle(library, "ompi_mpi_char", mpi.character);
  resolve_handle(library, "ompi_mpi_double", mpi.float64);
  resolve_handle(library, "ompi_mpi_int64_t", mpi.int64);
  resolve_handle(library, "ompi_mpi_uint64_t", mpi.uint64);
  return mpi;
}

}  // namespace

const MpiLibrary& mpi_library() {
  static const MpiLibrary loaded = load();
  return loaded;
}

}  // namespace couplet::tools
