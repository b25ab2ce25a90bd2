#pragma once
// The curve of `retrylab advise --plot`: mean drain time and attempts per client against the cap
// (log scale), two panels, 95% intervals, for the recommended strategy's curve, with the
// recommended policy, its margin neighbours (cap × 0.7, cap / 0.7) and the least cap that drained
// marked. A papers::Figure, rendered by papers/render.hpp (gnuplot); every text in the script goes
// through gp_quote, numbers through datablocks. Its own library (retrylab::advise_figure), so the
// advise library itself needs no papers/ (the Python module links advise alone).
#include <string>

#include "advise/advise.hpp"
#include "papers/render.hpp"

namespace retrylab::advise {

// The figure named `name` for the recommended candidate (the first candidate if none was
// recommended), in the user's unit: times × d, `unit` the unit's name for the axis labels.
papers::Figure curve_figure(const Advice& a, double d, const std::string& unit, const std::string& name);

}  // namespace retrylab::advise
