#pragma once
// Settings a paper leaves unstated, searched over every value the results can show, and one value
// per setting for the whole paper (docs/published.md):
//   k        the collapse threshold K: each steady run records its peak backlog, so whether it
//            reached K is known for every K up to the simulated one; the verdict is a step function
//            of K that changes only at those peaks, and every step is evaluated (the search is
//            exact, not a grid);
//   upto.F   the largest value of field F the measure's range includes (e.g. the largest cap of "the
//            longest drain over the caps"), every value of F in the sweep;
//   from.F   the smallest value (e.g. the smallest window of a search); over.upto.F and
//            over.from.F bound only the `over` side of a ratio (the window side of a frontier);
//   readings with a `setting` (e.g. the drain definition): the stated reading and each alternative.
// For each setting, the value that reproduces the most statements at once is the paper's reading
// (the stated value when it does as well); the summary says which statements it fails.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "papers/published/results.hpp"
#include "papers/published/statements.hpp"
#include "papers/published/verdict.hpp"

namespace retrylab::papers::published {

// A statement's verdict under a query (both seeds combined), and the value on the first seed.
struct Judged {
  Verdict verdict = Verdict::differs;
  double value = nan;
};
using JudgeFn = std::function<Judged(const Statement&, const Query&)>;

// One statement's verdict at every value of one setting.
struct SettingScan {
  std::string setting;              // the setting's name, e.g. "the collapse threshold K"
  std::string search;               // the search as written ("k", "upto.cap") or the reading's setting
  bool numeric = true;              // K and field ranges; false: labelled readings
  bool ceiling = true;              // numeric: a value v stands for the step up to v (K, from.F), else from v (upto.F)
  std::vector<double> values;       // numeric: ascending candidates
  std::vector<std::string> labels;  // labelled: "as stated" first
  std::vector<Judged> judged;       // per value or label
  double stated = nan;              // numeric: the stated value
  // The judged entry that holds for value x (numeric).
  const Judged& at(double x) const;
};

// The scans of one statement: one per search and per setting its readings name.
// `find` gives another statement by id (a statement built from others, `of`, searches K over theirs).
using FindFn = std::function<const Statement*(const std::string& id)>;
std::vector<SettingScan> scan(const Statement& s, const Results& r, const JudgeFn& judge, const FindFn& find);

// The paper-wide value of one setting over the scans of every statement that depends on it: the
// values that reproduce the most statements at once, split where the statements they reproduce
// change; of several such, the one holding the stated value, else the one nearest it (the smallest
// departure from the paper's words), the others named as ties.
struct PaperReading {
  std::string setting, search;
  bool numeric = true;
  std::pair<double, double> interval{nan, nan};  // numeric: the paper's values, (lo, hi] (or [lo, hi] on a grid)
  std::string label;                             // labelled: the reading reproducing the most
  std::size_t reproduced = 0, of = 0;            // statements reproduced at it, of those depending on it
  bool stated = false;                           // the stated value is the paper's reading
  std::vector<std::string> fails;                // ids of the statements it does not reproduce
  std::vector<std::string> ties;                 // other values that reproduce as many (other statements)
  bool reproduces(const SettingScan& sc) const;  // whether the paper's reading reproduces this statement
  std::string describe() const;                  // e.g. "K from 301 to 1,000"
};

std::vector<PaperReading> paper_readings(const std::map<std::string, std::vector<SettingScan>>& scans);

// The values of a setting that reproduce one statement, e.g. "K from 301 to 1,000 or from 2,500 to 2,800".
std::string reproducing_values(const SettingScan& sc);

}  // namespace retrylab::papers::published
