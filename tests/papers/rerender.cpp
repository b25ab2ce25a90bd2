// retrylab_rerender SPEC.toml SCALE DIR: renders the tables and figures of a study from DIR/results.jsonl
// again, running nothing (papers::render_study), e.g. after a change to the renderers. A developer
// tool, not installed: `retrylab run|reproduce --resume` cannot do it once the build (and so the
// validation certificate in the results header) has changed.
#include <cstdio>
#include <exception>

#include <filesystem>

#include "papers/published.hpp"
#include "papers/spec.hpp"
#include "papers/study.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: retrylab_rerender SPEC.toml quick|full DIR\n");
    return 2;
  }
  try {
    const auto spec = retrylab::papers::parse_study_file(argv[1], argv[2]);
    auto files = retrylab::papers::render_study(spec, argv[3]);
    const auto statements = std::filesystem::path(argv[1]).parent_path() / "published.toml";  // as `reproduce` does
    if (std::filesystem::exists(statements))
      for (auto& f : retrylab::papers::render_published(statements, spec, argv[3])) files.push_back(f);
    std::fprintf(stderr, "retrylab_rerender: %zu files in %s\n", files.size(), argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "retrylab_rerender: %s\n", e.what());
    return 1;
  }
}
