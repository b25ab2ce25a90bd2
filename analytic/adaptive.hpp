#pragma once
// AWS adaptive mode's token bucket with no throttling error (botocore retries/adaptive.py,
// bucket.py, throttling.py; the engine's montecarlo/components/adaptive_rate.hpp). Without a
// throttling error the fill rate after each response is max(0.5, min(CUBIC, 2 × measured rate)),
// where CUBIC = 0.4·t³ (w_max 0, k 0, t in seconds since the limiter was made) grows without bound
// and the measured rate, a smoothing (weight 0.8) of the response count over each 0.5 s bucket, has
// mean λ for Poisson responses at rate λ: the count that closes a bucket is 1 (the response that
// closes it) plus the responses after the previous one that closed a bucket, whose mean is
// λ·(0.5 − 1/λ). So the steady fill rate is 2λ, once 0.4·t³ > 2λ, when an empty 0.5 s bucket is
// negligible (probability e^(−λ/2)); the 0.5 floor never binds then (measured >= 0.8·2 after the
// first bucket). Proof: docs/models.md §7, "Adaptive client rate limiting" (a written argument; no
// Coq proof yet). Rates in responses (tokens) per second.
namespace retrylab {

constexpr double adaptive_steady_fill_rate(double lambda) noexcept { return 2.0 * lambda; }

}  // namespace retrylab
