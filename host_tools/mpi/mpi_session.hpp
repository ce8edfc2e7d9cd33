#pragma once
// The MPI environment of a `couplet run` started by mpirun (docs/mpi.md).
//
// couplet initializes MPI only when Open MPI's launcher started it
// (OMPI_COMM_WORLD_SIZE in the environment), so that an ordinary run neither
// needs nor touches MPI. MpiSession owns MPI_Init_thread/MPI_Finalize: one per
// process, for the whole `run` command.
#include <string>

namespace couplet::tools {

/// True when this process was started by Open MPI's mpirun/mpiexec.
bool launched_by_mpirun();

class MpiSession {
 public:
  /// MPI_Init_thread (MPI_THREAD_FUNNELED: only the stepping thread calls MPI;
  /// the recorder's writer thread does not). Throws std::runtime_error when MPI
  /// cannot start.
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The host this rank runs on, for messages.
  const std::string& host() const { return host_; }

  /// Last resort when the ranks can no longer agree (a failure on one rank
  /// outside the exchanges): ends every rank of the job with `status`.
  [[noreturn]] void abort(int status) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
};

}  // namespace couplet::tools
