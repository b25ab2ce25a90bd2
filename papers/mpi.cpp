#include "papers/mpi.hpp"

#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

namespace retrylab::papers::mpi {

namespace {

using montecarlo::RunResult;
using nlohmann::json;

// Run results travel as their bytes: every rank runs the same binary (a homogeneous cluster).
static_assert(std::is_trivially_copyable_v<RunResult>);

enum Tag : int {
  tag_unit = 1,    // 0 -> worker: UnitHeader
  tag_stop = 2,    // 0 -> worker: no more units
  tag_runs = 3,    // worker -> 0: UnitHeader + RunResult bytes
  tag_record = 4,  // worker -> 0: UnitHeader + CBOR of the point's record
  tag_error = 5,   // worker -> 0: what() of the exception that stopped it
  tag_alive = 6,   // worker -> 0: still computing (once a second while it holds units)
};

// One work unit: runs [first, last) of point `point` of sweep `sweep`, or the whole point (last < 0).
struct UnitHeader {
  std::int64_t unit = 0, sweep = 0, point = 0, first = 0, last = -1;
};
static_assert(std::is_trivially_copyable_v<UnitHeader>);

// Sleeps between polls that found nothing: 50 us, doubling up to 1 ms while nothing happens (a poll
// is an MPI progress call: thousands a second would take a visible share of the core that the
// rank's own engine thread computes on), back to 50 us after any message.
class Napper {
 public:
  void idle() {
    std::this_thread::sleep_for(std::chrono::microseconds(us_));
    us_ = std::min(2 * us_, 1000);
  }
  void reset() { us_ = 50; }

 private:
  int us_ = 50;
};

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(fmt::format("MPI {} failed: {}", what, std::string(text, static_cast<std::size_t>(len))));
}

bool initialized() noexcept {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init != 0 && fin == 0;
}

void wait_polling(MPI_Request& req) {
  for (Napper nap;;) {
    int done = 0;
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    nap.idle();
  }
}

// A message that has arrived: its source, tag and bytes.
struct Message {
  int source = 0;
  int tag = 0;
  std::vector<char> bytes;
};

bool try_receive(int source, Message& m) {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return false;
  int count = 0;
  check(MPI_Get_count(&st, MPI_BYTE, &count), "MPI_Get_count");
  m.source = st.MPI_SOURCE;
  m.tag = st.MPI_TAG;
  m.bytes.resize(static_cast<std::size_t>(count));
  check(MPI_Recv(m.bytes.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return true;
}

void send_bytes(int dest, int tag, const std::vector<char>& bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    throw std::runtime_error(fmt::format("a message of {} bytes is too large for one MPI send", bytes.size()));
  // Non-blocking send waited by polling: a large result does not spin the sender's core while rank 0
  // is busy computing its own unit.
  MPI_Request req;
  check(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req),
        "MPI_Isend");
  wait_polling(req);
}

template <class T>
void append_bytes(std::vector<char>& out, const T* data, std::size_t n) {
  const auto* p = reinterpret_cast<const char*>(data);
  out.insert(out.end(), p, p + n * sizeof(T));
}

UnitHeader read_header(const std::vector<char>& bytes) {
  if (bytes.size() < sizeof(UnitHeader)) throw std::runtime_error("MPI: a message shorter than its header");
  UnitHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  return h;
}

// A unit's result: the runs of a chunk, or the record of a whole point.
struct UnitResult {
  UnitHeader head;
  std::vector<RunResult> runs;
  json record;
};

std::vector<char> encode(const UnitResult& r) {
  std::vector<char> out;
  append_bytes(out, &r.head, 1);
  if (r.head.last < 0) {
    const std::vector<std::uint8_t> cbor = json::to_cbor(r.record);
    append_bytes(out, cbor.data(), cbor.size());
  } else {
    append_bytes(out, r.runs.data(), r.runs.size());
  }
  return out;
}

UnitResult decode(const std::vector<char>& bytes) {
  UnitResult r;
  r.head = read_header(bytes);
  const char* body = bytes.data() + sizeof(UnitHeader);
  const std::size_t n = bytes.size() - sizeof(UnitHeader);
  if (r.head.last < 0) {
    r.record = json::from_cbor(body, body + n);
  } else {
    if (n != static_cast<std::size_t>(r.head.last - r.head.first) * sizeof(RunResult))
      throw std::runtime_error("MPI: a run result message of the wrong size");
    r.runs.resize(static_cast<std::size_t>(r.head.last - r.head.first));
    if (n > 0) std::memcpy(static_cast<void*>(r.runs.data()), body, n);
  }
  return r;
}

UnitResult compute(const StudySpec& spec, const StudyOptions& opt, const UnitHeader& h,
                   const std::function<void()>& run_done) {
  const SweepSpec& sw = spec.sweeps.at(static_cast<std::size_t>(h.sweep));
  UnitResult r{h, {}, {}};
  if (h.last < 0)
    r.record = run_whole_point(sw, h.point, opt, run_done);
  else
    r.runs = run_range(sw, h.point, h.first, h.last, opt.threads, run_done);
  return r;
}

// Splits the unrecorded points into units, in study order. A splittable point becomes about 2 units
// per rank (so the last points of a study still keep every rank busy), each at least `threads` runs
// (so a rank's engine threads have work); sleep and extension points are one unit each.
std::vector<UnitHeader> make_units(const StudySpec& spec, const std::vector<PendingPoint>& todo, int ranks, int threads,
                                   std::vector<std::int64_t>& units_per_point) {
  const std::int64_t t = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<UnitHeader> units;
  units_per_point.assign(todo.size(), 0);
  for (std::size_t k = 0; k < todo.size(); ++k) {
    const SweepSpec& sw = spec.sweeps[todo[k].sweep];
    const auto s = static_cast<std::int64_t>(todo[k].sweep);
    if (!is_splittable(sw)) {
      units.push_back({static_cast<std::int64_t>(units.size()), s, todo[k].point, 0, -1});
      units_per_point[k] = 1;
      continue;
    }
    const std::int64_t pieces = 2 * static_cast<std::int64_t>(ranks);
    const std::int64_t chunk = std::max<std::int64_t>({1, (sw.runs + pieces - 1) / pieces, std::min(sw.runs, t)});
    for (std::int64_t first = 0; first < sw.runs; first += chunk) {
      units.push_back(
          {static_cast<std::int64_t>(units.size()), s, todo[k].point, first, std::min(sw.runs, first + chunk)});
      ++units_per_point[k];
    }
  }
  return units;
}

// Seconds a rank holding work may stay silent: RETRYLAB_MPI_SILENCE, default 60 (its heartbeat
// comes every second, so only a rank that is hung, stopped or gone reaches it).
double silence_limit_seconds() {
  const char* v = std::getenv("RETRYLAB_MPI_SILENCE");
  if (v == nullptr || *v == '\0') return 60.0;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(x >= 1.0 && x <= 1e6))
    throw InputError("RETRYLAB_MPI_SILENCE", fmt::format("must be a number of seconds in [1, 1e6] (got {})", v));
  return x;
}

[[noreturn]] void abort_job(int rank, const std::string& what, const StudyOptions& opt) {
  std::fprintf(stderr, "retrylab: rank %d failed: %s; the points recorded so far stay in %s: run again with --resume\n",
               rank, what.c_str(), (opt.out / "results.jsonl").string().c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();
}

// Rank 0's side of a study: hands out units, computes units on a second thread, gathers results and
// records every point in todo order.
void run_master(const StudySpec& spec, const std::vector<PendingPoint>& todo, const StudyOptions& opt,
                Progress& progress, const std::function<void(const json&)>& record) {
  const int ranks = world_size();
  std::vector<std::int64_t> left;  // units of each todo point not yet in
  const std::vector<UnitHeader> units = make_units(spec, todo, ranks, opt.threads, left);
  std::vector<std::size_t> todo_of;  // the todo point of each unit
  for (std::size_t k = 0; k < todo.size(); ++k) todo_of.insert(todo_of.end(), static_cast<std::size_t>(left[k]), k);
  std::vector<std::vector<RunResult>> runs(todo.size());
  std::vector<json> records(todo.size());

  std::mutex mutex;  // guards next, inbox, local_error
  std::size_t next = 0;
  std::deque<UnitResult> inbox;
  std::exception_ptr local_error;
  auto take = [&](UnitHeader& h) {
    std::lock_guard lock(mutex);
    if (next >= units.size()) return false;
    h = units[next++];
    return true;
  };
  std::thread local([&] {
    try {
      for (UnitHeader h; take(h);) {
        UnitResult r = compute(spec, opt, h, [&progress] { progress.run_done(); });
        std::lock_guard lock(mutex);
        inbox.push_back(std::move(r));
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      local_error = std::current_exception();
    }
  });

  try {
    std::vector<int> outstanding(static_cast<std::size_t>(ranks), 0);
    std::vector<bool> stopped(static_cast<std::size_t>(ranks), false);
    using clock = std::chrono::steady_clock;
    std::vector<clock::time_point> heard(static_cast<std::size_t>(ranks), clock::now());
    const double silence_limit = silence_limit_seconds();
    // Keeps two units queued at each worker, so it starts the next one while rank 0 is between polls.
    auto assign = [&](int w) {
      while (outstanding[static_cast<std::size_t>(w)] < 2) {
        UnitHeader h;
        if (!take(h)) {
          if (!stopped[static_cast<std::size_t>(w)]) {
            send_bytes(w, tag_stop, {});
            stopped[static_cast<std::size_t>(w)] = true;
          }
          return;
        }
        progress.start_item(fmt::format("{} #{}", spec.sweeps[static_cast<std::size_t>(h.sweep)].name, h.point));
        std::vector<char> bytes;
        append_bytes(bytes, &h, 1);
        send_bytes(w, tag_unit, bytes);
        if (outstanding[static_cast<std::size_t>(w)]++ == 0) heard[static_cast<std::size_t>(w)] = clock::now();
      }
    };
    auto ingest = [&](UnitResult&& r, bool remote) {
      const std::size_t k = todo_of.at(static_cast<std::size_t>(r.head.unit));
      if (r.head.last < 0) {
        records[k] = std::move(r.record);
        if (remote) progress.run_done();
      } else {
        auto& v = runs[k];
        const SweepSpec& sw = spec.sweeps[todo[k].sweep];
        if (v.empty()) v.resize(static_cast<std::size_t>(sw.runs));
        std::copy(r.runs.begin(), r.runs.end(), v.begin() + r.head.first);
        if (remote)
          for (std::size_t i = 0; i < r.runs.size(); ++i) progress.run_done();
      }
      --left[k];
    };
    for (int w = 1; w < ranks; ++w) assign(w);
    std::size_t flushed = 0;
    Napper nap;
    while (flushed < todo.size()) {
      bool busy = false;
      Message m;
      while (try_receive(MPI_ANY_SOURCE, m)) {
        busy = true;
        heard[static_cast<std::size_t>(m.source)] = clock::now();
        if (m.tag == tag_alive) continue;
        if (m.tag == tag_error) abort_job(m.source, std::string(m.bytes.begin(), m.bytes.end()), opt);
        if (m.tag != tag_runs && m.tag != tag_record)
          throw std::runtime_error(fmt::format("MPI: unexpected message tag {} from rank {}", m.tag, m.source));
        ingest(decode(m.bytes), true);
        --outstanding[static_cast<std::size_t>(m.source)];
        assign(m.source);
      }
      // A rank holding units that has sent nothing (not even its heartbeat) for the limit is hung or
      // gone (one that dies is usually caught first by mpirun, which ends the job itself). Checked
      // right after draining the messages, so time rank 0 spends recording points never counts.
      for (int w = 1; w < ranks; ++w) {
        const double quiet = std::chrono::duration<double>(clock::now() - heard[static_cast<std::size_t>(w)]).count();
        if (outstanding[static_cast<std::size_t>(w)] > 0 && quiet > silence_limit)
          abort_job(w,
                    fmt::format("sent nothing for {:.0f} s while holding work (hung, stopped or gone; "
                                "RETRYLAB_MPI_SILENCE sets the limit)",
                                quiet),
                    opt);
      }
      {
        std::unique_lock lock(mutex);
        if (local_error) std::rethrow_exception(local_error);
        while (!inbox.empty()) {
          busy = true;
          UnitResult r = std::move(inbox.front());
          inbox.pop_front();
          lock.unlock();
          ingest(std::move(r), false);
          lock.lock();
        }
      }
      while (flushed < todo.size() && left[flushed] == 0) {
        const SweepSpec& sw = spec.sweeps[todo[flushed].sweep];
        if (is_splittable(sw)) {
          record(point_record(sw, todo[flushed].point, opt.certificate_id, runs[flushed]));
          std::vector<RunResult>().swap(runs[flushed]);
        } else {
          record(records[flushed]);
          records[flushed] = json();
        }
        ++flushed;
        busy = true;
      }
      if (busy)
        nap.reset();
      else
        nap.idle();
    }
    for (int w = 1; w < ranks; ++w)
      if (!stopped[static_cast<std::size_t>(w)]) send_bytes(w, tag_stop, {});
  } catch (const std::exception& e) {
    abort_job(0, e.what(), opt);
  }
  local.join();
}

}  // namespace

bool launched_by_mpi() noexcept {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (const char* s = std::getenv(v); s != nullptr && *s != '\0') return true;
  return false;
}

Session::Session(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "retrylab: MPI_Init_thread failed\n");
    std::exit(3);
  }
  active_ = true;
  // Errors come back as codes (turned into exceptions by check()), not as Open MPI's abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_FUNNELED) {
    std::fprintf(stderr, "retrylab: this MPI library does not allow engine threads beside MPI (MPI_THREAD_FUNNELED)\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

Session::~Session() {
  if (active_ && initialized()) MPI_Finalize();
}

int world_rank() noexcept {
  if (!initialized()) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() noexcept {
  if (!initialized()) return 1;
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

Decision broadcast_decision(const Decision& from_rank0) {
  if (world_size() == 1) return from_rank0;
  const bool root = world_rank() == 0;
  std::int64_t head[2] = {from_rank0.code, static_cast<std::int64_t>(from_rank0.payload.size())};
  MPI_Request req;
  check(MPI_Ibcast(head, 2, MPI_INT64_T, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast");
  wait_polling(req);  // rank 0 may be validating for a minute: the others wait without spinning
  Decision d{static_cast<int>(head[0]),
             root ? from_rank0.payload : std::string(static_cast<std::size_t>(head[1]), '\0')};
  if (head[1] > 0) {
    check(MPI_Ibcast(d.payload.data(), static_cast<int>(head[1]), MPI_CHAR, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast");
    wait_polling(req);
  }
  return d;
}

StudyOutcome run_study_master(const StudySpec& spec, const StudyOptions& options) {
  bool driving = false;
  try {
    return run_study(spec, options,
                     [&driving](const StudySpec& s, const std::vector<PendingPoint>& todo, const StudyOptions& o,
                                Progress& progress, const std::function<void(const json&)>& record) {
                       driving = true;
                       run_master(s, todo, o, progress, record);
                     });
  } catch (...) {
    // Refused before any unit went out (e.g. --resume on another study's folder): the workers are
    // waiting for their first message; let them go before rank 0 reports the error.
    if (!driving)
      for (int w = 1; w < world_size(); ++w) send_bytes(w, tag_stop, {});
    throw;
  }
}

void serve(const StudySpec& study, const StudyOptions& options) {
  const int me = world_rank();
  StudySpec spec = study;  // with --seed applied, as run_study does on rank 0
  if (options.seed) reseed(spec, *options.seed);
  // The main thread talks to rank 0 (units in; results, errors and a heartbeat every second while it
  // has work out); a second thread computes, so the heartbeat goes on during a long unit.
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<UnitHeader> queue;                          // units received, not started
  std::deque<std::pair<int, std::vector<char>>> outbox;  // (tag, bytes) for rank 0
  bool stop = false, busy = false;
  std::thread computer([&] {
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;
      const UnitHeader h = queue.front();
      queue.pop_front();
      busy = true;
      lock.unlock();
      std::pair<int, std::vector<char>> out;
      try {
        out = {h.last < 0 ? tag_record : tag_runs, encode(compute(spec, options, h, {}))};
      } catch (const std::exception& e) {
        const std::string what = e.what();  // rank 0 prints it, naming this rank, and ends the job
        out = {tag_error, std::vector<char>(what.begin(), what.end())};
      }
      lock.lock();
      busy = false;
      const bool failed = out.first == tag_error;
      outbox.push_back(std::move(out));
      if (failed) return;
    }
  });
  auto last_sent = std::chrono::steady_clock::now();
  Napper nap;
  try {
    for (;;) {
      bool acted = false;
      for (Message m; try_receive(0, m);) {
        acted = true;
        std::lock_guard lock(mutex);
        if (m.tag == tag_stop)
          stop = true;
        else if (m.tag == tag_unit)
          queue.push_back(read_header(m.bytes));
        else
          throw std::runtime_error(fmt::format("MPI: rank {} got unexpected tag {}", me, m.tag));
        wake.notify_one();
      }
      std::deque<std::pair<int, std::vector<char>>> out;
      bool working = false, done = false;
      {
        std::lock_guard lock(mutex);
        out.swap(outbox);
        working = busy || !queue.empty();
        done = stop && !busy && queue.empty();
      }
      for (const auto& [tag, bytes] : out) {
        send_bytes(0, tag, bytes);
        last_sent = std::chrono::steady_clock::now();
        acted = true;
      }
      if (done && out.empty()) break;
      if (working && std::chrono::steady_clock::now() - last_sent >= std::chrono::seconds(1)) {
        send_bytes(0, tag_alive, {});
        last_sent = std::chrono::steady_clock::now();
      }
      if (acted)
        nap.reset();
      else
        nap.idle();
    }
  } catch (...) {
    {
      std::lock_guard lock(mutex);
      stop = true;
      queue.clear();
    }
    wake.notify_all();
    computer.join();
    throw;
  }
  computer.join();
}

}  // namespace retrylab::papers::mpi
