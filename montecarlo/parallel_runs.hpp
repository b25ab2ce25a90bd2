#pragma once
// run_in_order: plan.runs independent runs, each a pure function of its run index, on plan.threads
// threads (0 = all cores), returned in run-index order, so the result never depends on the thread
// count or on scheduling (docs/models.md §6). The first exception thrown by any run stops the others and
// is rethrown. progress(done, total) is called from worker threads as runs finish (may be empty).
// Shared by the engine (simulate.cpp, run_detail.cpp) and the layered amplification count.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "montecarlo/scenario.hpp"  // RunPlan, check_run_plan

namespace retrylab::montecarlo::detail {

// The most worker threads ever started (a --threads 100000 asked the system for 100,000 threads,
// and aborted when it refused); threads never change a result, so fewer only take longer.
inline constexpr std::int64_t max_worker_threads = 4096;

// How many worker threads serve `runs` runs when `requested` are asked for (0 = all cores, at least
// one): never more than there are runs, nor than max_worker_threads.
inline std::int64_t worker_threads(std::int64_t runs, int requested) {
  const std::int64_t threads = requested > 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  return std::min({threads, runs, max_worker_threads});
}

// Runs worker() on `threads` threads and waits for them all; on the calling thread alone when
// threads <= 1. worker takes its runs from state it shares with the caller and catches its own errors.
template <typename Worker>
void run_workers(std::int64_t threads, Worker& worker) {
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  try {
    for (std::int64_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  } catch (const std::system_error&) {
    // The system started fewer threads than asked (a thread or memory limit): those running share
    // the runs between them, as they take each next run from the shared counter.
  }
  if (pool.empty()) worker();
  for (auto& t : pool) t.join();
}

// The same for `count` runs indexed 0 … count−1 (count >= 0), without a RunPlan: one(i, scratch) for
// each, where every worker thread owns one default-constructed Scratch, handed to each run it does
// (storage a run may reuse from the previous one; a run's result must not depend on what it holds).
template <typename Result, typename Scratch, typename Fn>
std::vector<Result> run_in_order_with(std::int64_t count, int requested_threads, Fn&& one,
                                      const std::function<void(std::int64_t, std::int64_t)>& progress) {
  const std::int64_t runs = count;
  std::vector<Result> results(static_cast<std::size_t>(runs));
  const std::int64_t threads = worker_threads(runs, requested_threads);

  std::atomic<std::int64_t> next{0}, done{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      Scratch scratch{};
      for (;;) {
        const std::int64_t i = next.fetch_add(1);
        if (i >= runs) return;
        results[static_cast<std::size_t>(i)] = one(static_cast<std::uint64_t>(i), scratch);
        const std::int64_t d = done.fetch_add(1) + 1;
        if (progress) progress(d, runs);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(runs);
    }
  };
  run_workers(threads, worker);
  if (error) std::rethrow_exception(error);
  return results;
}

// Without scratch: one(i) for each.
template <typename Result, typename Fn>
std::vector<Result> run_in_order(std::int64_t count, int requested_threads, Fn&& one,
                                 const std::function<void(std::int64_t, std::int64_t)>& progress) {
  struct None {};
  return run_in_order_with<Result, None>(
      count, requested_threads, [&one](std::uint64_t i, None&) { return one(i); }, progress);
}

// Runs that also make a Part each (a run's time series) reduced in run-index order: one(i, scratch,
// part) fills part and returns the result; reduce(i, part) is called for i = 0, 1, ... in order, on
// whichever worker finishes the run that completes the prefix, so the reduction never depends on the
// thread count. A worker waits before starting run i while i >= next + 2·threads (next: the first run
// not yet reduced), so at most 2·threads parts are ever held.
template <typename Result, typename Part, typename Scratch, typename Fn, typename Reduce>
std::vector<Result> run_in_order_reduce(const RunPlan& plan, Fn&& one, Reduce&& reduce,
                                        const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_run_plan(plan);
  const std::int64_t runs = plan.runs;
  std::vector<Result> results(static_cast<std::size_t>(runs));
  const std::int64_t threads = worker_threads(runs, plan.threads);
  const std::int64_t ahead = 2 * threads;
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::unique_ptr<Part>> waiting(static_cast<std::size_t>(runs));  // finished, not yet reduced
  std::int64_t next_run = 0, next_reduce = 0, done = 0;
  bool failed = false;
  std::exception_ptr error;
  auto worker = [&] {
    Scratch scratch{};
    for (;;) {
      std::int64_t i = 0;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return failed || next_run >= runs || next_run < next_reduce + ahead; });
        if (failed || next_run >= runs) return;
        i = next_run++;
      }
      try {
        auto part = std::make_unique<Part>();
        Result r = one(static_cast<std::uint64_t>(i), scratch, *part);
        std::unique_lock<std::mutex> lock(m);
        results[static_cast<std::size_t>(i)] = std::move(r);
        waiting[static_cast<std::size_t>(i)] = std::move(part);
        while (next_reduce < runs && waiting[static_cast<std::size_t>(next_reduce)]) {
          reduce(static_cast<std::uint64_t>(next_reduce), *waiting[static_cast<std::size_t>(next_reduce)]);
          waiting[static_cast<std::size_t>(next_reduce)].reset();
          ++next_reduce;
        }
        ++done;
        const std::int64_t d = done;
        lock.unlock();
        cv.notify_all();
        if (progress) progress(d, runs);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(m);
        if (!failed) error = std::current_exception();
        failed = true;
        cv.notify_all();
        return;
      }
    }
  };
  run_workers(threads, worker);
  if (error) std::rethrow_exception(error);
  return results;
}

template <typename Result, typename Scratch, typename Fn>
std::vector<Result> run_in_order_with(const RunPlan& plan, Fn&& one,
                                      const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_run_plan(plan);
  return run_in_order_with<Result, Scratch>(plan.runs, plan.threads, std::forward<Fn>(one), progress);
}

template <typename Result, typename Fn>
std::vector<Result> run_in_order(const RunPlan& plan, Fn&& one,
                                 const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_run_plan(plan);
  return run_in_order<Result>(plan.runs, plan.threads, std::forward<Fn>(one), progress);
}

}  // namespace retrylab::montecarlo::detail
