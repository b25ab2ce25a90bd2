#pragma once
// Running a study across MPI ranks (compiled only with RETRYLAB_WITH_MPI=ON, and this header
// names no MPI type). Rank 0 owns the results store: it hands out work units (runs [first, last) of
// a splittable point, or a whole sleep/extension point) on demand, computes units itself on a second
// thread between its polls, gathers run results in run-index order and appends each point to
// results.jsonl in study order, buffering points that finish early. So results.jsonl and every
// rendered output are the bytes a single process writes, for any rank count and --threads, and a
// killed job resumes with any rank count. Ranks > 0 only compute and never touch the output folder.
// Waits poll (MPI_Iprobe/MPI_Test and a short sleep) instead of Open MPI's busy-waiting, so an idle
// rank leaves its core to the ranks that compute.
// Failures: an exception on any rank, or a rank holding work that sends nothing (not even its
// once-a-second heartbeat) for RETRYLAB_MPI_SILENCE seconds (default 60: hung, stopped or gone), ends
// the job with one line on rank 0's stderr naming the rank; a rank killed by a signal is usually
// caught first by mpirun, which ends the job and names it (README "Running on a cluster (MPI)").
// Either way results.jsonl holds only whole, in-order points: --resume continues.
// MPI's own world communicator is the only process-wide state; Session owns its lifetime.
#include <string>

#include "papers/study.hpp"

namespace retrylab::papers::mpi {

// True when this process was started by an MPI launcher (mpirun/mpiexec, or srun with PMI/PMIx).
bool launched_by_mpi() noexcept;

// MPI_Init_thread (funneled: only the main thread calls MPI) when launched_by_mpi(), MPI_Finalize at
// the end of its scope; does nothing otherwise, so a plain run of an MPI build behaves as before.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  bool active_ = false;
};

// This process's rank and the number of ranks (0 and 1 when MPI is not initialized).
int world_rank() noexcept;
int world_size() noexcept;

// Rank 0's decision to all ranks: code 0 = go on with `payload`, else every rank returns `code`.
// On rank 0 the arguments are sent; on other ranks they are ignored and rank 0's are returned.
struct Decision {
  int code = 0;
  std::string payload;
};
Decision broadcast_decision(const Decision& from_rank0);

// Rank 0: run_study with the points spread over every rank (rank 0 computes too). Workers must be
// in serve(); if the study is refused before any unit goes out, they are released.
StudyOutcome run_study_master(const StudySpec& spec, const StudyOptions& options);

// Ranks > 0: compute the units rank 0 hands out until it says stop.
void serve(const StudySpec& spec, const StudyOptions& options);

}  // namespace retrylab::papers::mpi
