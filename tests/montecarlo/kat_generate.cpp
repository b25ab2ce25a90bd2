// Fills the outputs of tests/montecarlo/kat_vectors.txt for the engine's own conversions, computed
// independently of the engine: exact rationals and 50-digit logarithms (Boost.Multiprecision), then
// rounded once to double. Lines whose first word is not one of ours (philox4x32_10: Random123's
// published vectors) are copied unchanged. Usage: retrylab_kat_generate FILE (rewrites FILE).
// The checked-in template carries the marker UNWRITTEN in every output field; the test refuses any
// line that still has it, so a case that was never generated is visible.
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace mp = boost::multiprecision;
using Big = mp::cpp_bin_float_50;

namespace {

std::string hexfloat(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

// (floor(x / 2^12) + 1/2) / 2^52, exactly.
Big uniform_ref(std::uint64_t x) {
  Big u = Big(x >> 12) + Big(0.5);
  return u / mp::pow(Big(2), 52);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: retrylab_kat_generate tests/montecarlo/kat_vectors.txt\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "uniform_open" || kind == "exponential") {
      std::string xs;
      ls >> xs;
      const std::uint64_t x = std::stoull(xs, nullptr, 16);
      const Big u = uniform_ref(x);
      const double v = kind == "uniform_open" ? static_cast<double>(u) : static_cast<double>(-mp::log(u));
      out.push_back(kind + " " + xs + " " + hexfloat(v));
    } else if (kind == "uniform_index") {
      std::string xs;
      std::uint64_t m = 0;
      ls >> xs >> m;
      const std::uint64_t x = std::stoull(xs, nullptr, 16);
      const mp::cpp_int p = (mp::cpp_int(x) * m) >> 64;  // floor(x·m / 2^64)
      out.push_back(kind + " " + xs + " " + std::to_string(m) + " " + p.str());
    } else {
      out.push_back(line);
    }
  }
  in.close();
  std::ofstream o(argv[1]);
  for (const auto& l : out) o << l << "\n";
  return 0;
}
