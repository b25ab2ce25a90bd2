// retrylab_rerender SPEC.toml SCALE DIR: renders the tables and figures of a study from DIR/results.jsonl
// again, running nothing (papers::render_study), e.g. after a change to the renderers; beside a paper's
// published.toml and README.template.md also its published table and README, as `reproduce` does (the
// certificate named is the one in the results header). A developer tool, not installed: `retrylab
// run|reproduce --resume` cannot do it once the build (and so the validation certificate in the results
// header) has changed.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "papers/published.hpp"
#include "papers/readme.hpp"
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
    const auto tmpl = std::filesystem::path(argv[1]).parent_path() / "README.template.md";
    if (std::filesystem::exists(tmpl)) {
      std::ifstream in(std::filesystem::path(argv[3]) / "results.jsonl");
      std::string header;
      std::getline(in, header);
      const auto cert = nlohmann::json::parse(header).value("certificate", std::string());
      retrylab::papers::render_readme(tmpl, argv[3], spec, cert);
      files.push_back(std::filesystem::path(argv[3]) / "README.md");
    }
    std::fprintf(stderr, "retrylab_rerender: %zu files in %s\n", files.size(), argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "retrylab_rerender: %s\n", e.what());
    return 1;
  }
}
