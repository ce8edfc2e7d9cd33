#pragma once
// Open MPI, loaded when a `couplet run` finds itself started by mpirun
// (docs/mpi.md). couplet does not link it: every other command would map its
// libraries (Open MPI's runtime, hwloc, libevent, udev) at start for nothing
// (docs/results.md, "Start-up time"). mpi.h gives the types and signatures;
// the functions and Open MPI's predefined handles (MPI_COMM_WORLD, MPI_BYTE,
// ... are addresses of the library's own objects) are looked up by name once.
#include <mpi.h>

#if !defined(OPEN_MPI)
#error "couplet's MPI executor loads Open MPI's library; this mpi.h is another MPI's"
#endif

namespace couplet::tools {

/// The MPI calls and handles couplet uses.
struct MpiLibrary {
  decltype(&MPI_Init_thread) init_thread;
  decltype(&MPI_Finalize) finalize;
  decltype(&MPI_Abort) abort;
  decltype(&MPI_Comm_set_errhandler) comm_set_errhandler;
  decltype(&MPI_Comm_rank) comm_rank;
  decltype(&MPI_Comm_size) comm_size;
  decltype(&MPI_Get_processor_name) get_processor_name;
  decltype(&MPI_Error_string) error_string;
  decltype(&MPI_Bcast) bcast;
  decltype(&MPI_Allgatherv) allgatherv;
  MPI_Comm comm_world;
  MPI_Errhandler errors_return;
  MPI_Datatype byte;
  MPI_Datatype character;
  MPI_Datatype float64;
  MPI_Datatype int64;
  MPI_Datatype uint64;
};

/// Loads Open MPI's library the first time (later calls return the same
/// table). Throws std::runtime_error naming the library and what is missing.
const MpiLibrary& mpi_library();

}  // namespace couplet::tools
