#pragma once
// Closed forms for the server-side mechanisms (montecarlo/engine.hpp), retries
// off, Poisson arrivals of rate λ; time unit: the mean attempt duration.
//  ALOHA over M rows (model `collision`, service exactly 1, each attempt on a row drawn uniformly
//   and independently): by Poisson thinning each row sees an independent Poisson stream of rate
//   λ/M and an attempt succeeds iff no other start on its row within 1 before or after it:
//   P(success) = e^(−2λ/M),  goodput = λ·e^(−2λ/M)  (maximum M/(2e) at λ = M/2).
//  First-commit-wins over M rows (model `free`, service exactly 1): each row is an M/D/1/1 loss
//   system (an attempt reaching a row with no successful commit pending commits 1 later; one
//   arriving while a commit is pending fails): row goodput (λ/M)/(1+λ/M), total λ/(1+λ/M).
//   Needs deterministic service: with variable service a later attempt can commit first.
//  FIFO lock on one row (any model: the attempt runs alone and succeeds), service S with E[S] = 1,
//   E[S²] = m2: M/G/1 FIFO, Pollaczek–Khinchine mean time in system W = 1 + λ·m2 / (2(1−λ)),
//   λ < 1. Exponential: m2 = 2, W = 1/(1−λ) (M/M/1); deterministic: m2 = 1 (M/D/1); lognormal
//   with coefficient of variation c: m2 = 1 + c². With M rows and a lock per row, `collision` and
//   `free` rows are independent M/G/1 queues of rate λ/M (each row has its own unit-rate service);
//   `shared` rows share one server and are not covered.
//  Client timeout τ behind the lock, exponential service (M/M/1 FIFO), one attempt per client
//   (retries on, max_attempts = 1): the server serves every attempt, orphaned or not, so the queue
//   is M/M/1 FIFO whatever the clients do, and a client is lost iff its time in system W exceeds
//   τ. W is exponential with rate 1 − λ, so P(lost) = e^(−(1−λ)τ).
// Cited, not proved: Poisson thinning (the rows are independent streams of rate λ/M, so the
// one-row results of Aloha.v, Occ.v and the lock's P–K apply per row); Little's law Lq = λ·Wq
// and, by PASTA, the mean residual service λ·m2/2 (hypotheses of pk_mean_value, not axioms); the
// normal moments E[e^(kX)] = e^(kμ + k²σ²/2) behind lognormal_second_moment; the M/M/1 FIFO time
// in system is exponential with rate 1 − λ (the density integrated by mm1_timeout_loss).
// Proof: proofs/Rows.v: aloha_rows_goodput
// Proof: proofs/Rows.v: aloha_rows_max
// Proof: proofs/Rows.v: aloha_rows_monotone
// Proof: proofs/Rows.v: occ_rows_goodput
// Proof: proofs/Rows.v: occ_rows_bounds
// Proof: proofs/Rows.v: occ_rows_monotone
// Proof: proofs/Rows.v: occ_rows_increasing
// Proof: proofs/Rows.v: pk_mean_value
// Proof: proofs/Rows.v: pk_mean_time
// Proof: proofs/Rows.v: pk_mm1
// Proof: proofs/Rows.v: pk_md1
// Proof: proofs/Rows.v: pk_monotone
// Proof: proofs/Rows.v: exp_second_moment
// Proof: proofs/Rows.v: lognormal_second_moment
// Proof: proofs/Rows.v: mm1_timeout_loss
// Proof: proofs/Rows.v: mm1_timeout_loss_bounds
#include <cstdint>

namespace retrylab {

struct AlohaRows {
  double rate = 0.0;      // λ, finite, >= 0
  std::int64_t rows = 1;  // M >= 1
};
double success_probability(const AlohaRows& m);  // e^(−2λ/M)
double goodput(const AlohaRows& m);              // λ·e^(−2λ/M)

struct FreeRows {
  double rate = 0.0;      // λ, finite, >= 0
  std::int64_t rows = 1;  // M >= 1
};
double goodput(const FreeRows& m);  // λ/(1+λ/M)

// M/G/1 FIFO with unit mean service (the lock on one row).
struct FifoQueue {
  double rate = 0.0;           // λ in [0, 1)
  double second_moment = 1.0;  // E[S²] >= 1 (= 1 + CV²; E[S] = 1 forces E[S²] >= 1)
};
double mean_wait(const FifoQueue& m);  // λ·m2 / (2(1−λ))
double mean_time(const FifoQueue& m);  // 1 + mean_wait

// M/M/1 FIFO (the lock, exponential service, unit mean) with a client timeout τ: the probability
// that a client's time in system exceeds τ, e^(−(1−λ)τ).
struct FifoTimeout {
  double rate = 0.0;     // λ in [0, 1)
  double timeout = 1.0;  // τ, finite, > 0
};
double loss_probability(const FifoTimeout& m);  // e^(−(1−λ)τ)
void check_fifo_timeout(const FifoTimeout& m);

// E[S²] of the engine's service distributions with mean 1: deterministic 1, exponential 2,
// lognormal 1 + cv².
double service_second_moment_exponential() noexcept;
double service_second_moment_lognormal(double cv);

// Each throws InputError naming the field (rate, rows, second_moment, cv) and its range.
void check_aloha_rows(const AlohaRows& m);
void check_free_rows(const FreeRows& m);
void check_fifo(const FifoQueue& m);

}  // namespace retrylab
