#pragma once
// A paper's README.md from its README.template.md (docs/study-spec.md): a line
// "<!-- include: FILE -->" is replaced by FILE's text from the output folder, so the write-up
// always shows the tables of this very run; {{scale}} and {{certificate}} are filled in, and
// {{n:TEXT}} is shown as TEXT (a literal that papers/prose.hpp does not hold to the tables). A FILE
// missing from the folder is replaced by one line saying which command writes it. No template, no
// README. The README is written atomically (montecarlo/atomic_file.hpp).
#include <filesystem>
#include <string>

#include "papers/spec.hpp"

namespace retrylab::papers {

void render_readme(const std::filesystem::path& tmpl, const std::filesystem::path& out, const StudySpec& spec,
                   const std::string& certificate);

}  // namespace retrylab::papers
