#pragma once
// The validation table in four renderings: plain text for people (aligned), Markdown, LaTeX
// (booktabs) and CSV (one row per case, raw numbers), plus JSON. write_reports puts
// validation.md, validation.tex and validation.csv in a folder, each atomically (temporary name,
// then rename), so a reader never sees half a table.
#include <filesystem>
#include <string>
#include <vector>

#include "validation/suite.hpp"

namespace retrylab::validation {

std::string format_text(const SuiteResult& r);
std::string format_markdown(const SuiteResult& r);
std::string format_latex(const SuiteResult& r);
std::string format_csv(const SuiteResult& r);
std::string format_json(const SuiteResult& r, const std::string& version);

// Writes the three files; returns their paths. Throws std::runtime_error when the folder cannot be
// written.
std::vector<std::filesystem::path> write_reports(const SuiteResult& r, const std::filesystem::path& dir);

}  // namespace retrylab::validation
