#include "host_tools/mpi_session.hpp"

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

namespace couplet::tools {

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

MpiSession::MpiSession() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Init_thread failed");
  }
  // Errors come back as codes (checked where MPI is called) instead of ending
  // the job before rank 0 has closed its run log.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

void MpiSession::abort(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::abort();  // MPI_Abort does not return; should it, this rank still ends
}

}  // namespace couplet::tools
