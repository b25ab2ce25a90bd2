#pragma once
// Reading and comparing output files in tests: slurp (a whole file, bytes as they are), spit (write
// one), and the golden-file update mode (OpenMC's regression files): with RETRYLAB_UPDATE_GOLDEN set
// a test rewrites its golden from the output instead of comparing (then review the diff, commit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

namespace retrylab::test {

// The whole file; empty when it cannot be read (a test then fails on the content, never here).
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void spit(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// RETRYLAB_UPDATE_GOLDEN set in the environment (=1 by convention): goldens are rewritten, not compared.
inline bool update_golden() { return std::getenv("RETRYLAB_UPDATE_GOLDEN") != nullptr; }

// The files of a folder (not its subfolders) by name, with their bytes.
inline std::map<std::string, std::string> all_files(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out[e.path().filename().string()] = slurp(e.path());
  return out;
}

// Each of `files` whose extension is one of `exts` against golden/NAME, byte for byte (a failure
// names the file and how to regenerate); in update mode rewrites golden/NAME instead. Returns how
// many were compared (0 in update mode), -1 when a golden file is missing.
inline int expect_goldens(const std::map<std::string, std::string>& files, const std::filesystem::path& golden,
                          std::initializer_list<std::string_view> exts) {
  const bool update = update_golden();
  if (update) std::filesystem::create_directories(golden);
  int compared = 0;
  for (const auto& [name, bytes] : files) {
    const std::string ext = std::filesystem::path(name).extension().string();
    if (std::find(exts.begin(), exts.end(), ext) == exts.end()) continue;
    if (update) {
      spit(golden / name, bytes);
      continue;
    }
    if (!std::filesystem::exists(golden / name)) {
      ADD_FAILURE() << name << " has no golden file; run with RETRYLAB_UPDATE_GOLDEN=1";
      return -1;
    }
    EXPECT_EQ(bytes, slurp(golden / name))
        << name << " differs from " << (golden / name)
        << "; if the change is intended, rerun with RETRYLAB_UPDATE_GOLDEN=1 and review the diff";
    ++compared;
  }
  return compared;
}

}  // namespace retrylab::test
