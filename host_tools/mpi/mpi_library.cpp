#include "host_tools/mpi/mpi_library.hpp"

#include "host_tools/process/loaded_library.hpp"

namespace couplet::tools {

namespace {

// Open MPI's predefined handles are the addresses of its objects
// (OMPI_PREDEFINED_GLOBAL in mpi.h).
template <typename Handle>
void resolve_handle(const LoadedLibrary& library, const char* object, Handle& handle) {
  handle = static_cast<Handle>(library.symbol(object));
}

MpiLibrary load() {
  // RTLD_GLOBAL: the components MPI_Init loads (mca_*.so) resolve their calls
  // into libmpi against the global scope.
  const LoadedLibrary library(
      COUPLET_MPI_LIBRARY, true,
      "this run was started by mpirun, but Open MPI's library cannot be loaded",
      "Debian: apt-get install libopenmpi3");
  MpiLibrary mpi{};
  library.resolve("MPI_Init_thread", mpi.init_thread);
  library.resolve("MPI_Finalize", mpi.finalize);
  library.resolve("MPI_Abort", mpi.abort);
  library.resolve("MPI_Comm_set_errhandler", mpi.comm_set_errhandler);
  library.resolve("MPI_Comm_rank", mpi.comm_rank);
  library.resolve("MPI_Comm_size", mpi.comm_size);
  library.resolve("MPI_Get_processor_name", mpi.get_processor_name);
  library.resolve("MPI_Error_string", mpi.error_string);
  library.resolve("MPI_Bcast", mpi.bcast);
  library.resolve("MPI_Allgatherv", mpi.allgatherv);
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
