#include "host_tools/mpi/mpi_session.hpp"

#include <cstdlib>
#include <stdexcept>

#include "host_tools/mpi/mpi_library.hpp"

namespace couplet::tools {

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

MpiSession::MpiSession() {
  const MpiLibrary& mpi = mpi_library();
  int provided = 0;
  if (mpi.init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Init_thread failed");
  }
  // Errors come back as codes (checked where MPI is called) instead of ending
  // the job before rank 0 has closed its run log.
  mpi.comm_set_errhandler(mpi.comm_world, mpi.errors_return);
  mpi.comm_rank(mpi.comm_world, &rank_);
  mpi.comm_size(mpi.comm_world, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  mpi.get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
}

MpiSession::~MpiSession() {
  mpi_library().finalize();
}

void MpiSession::abort(int status) const {
  mpi_library().abort(mpi_library().comm_world, status);
  std::abort();  // MPI_Abort does not return; should it, this rank still ends
}

}  // namespace couplet::tools
