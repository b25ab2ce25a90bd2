#pragma once
// Numbers in a paper's prose against the tables of its folder: every number a README.template.md
// writes in prose must be one a table of the same folder holds (docs/published.md, "Prose from
// tables"), so the write-up cannot drift from the results it describes.
//   Prose: every line of the template except headings, include lines, HTML comments and fenced code;
//     inline code, link targets and {{...}} fields are left out ({{n:TEXT}} is a literal the author
//     vouches for: a date, a citation, a formula's constant; it is rendered as TEXT).
//   A prose number (1,234.5, 15%, 1.39×, −0.2) matches a table number that rounds to it at the
//     precision it is printed with (15% is 0.15 ± 0.005 or 15 ± 0.5; 76,080 is ± 0.5; 1.39 ± 0.005).
//   Table numbers: every number in the folder's CSV and Markdown tables (cells and notes), the
//     validation table included; not the README itself.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace retrylab::papers {

struct ProseNumber {
  std::size_t line = 0;  // in the template, from 1
  std::string text;      // as printed
};

// The prose numbers of `tmpl` that no table of `folder` holds, in order.
std::vector<ProseNumber> unbacked_numbers(const std::filesystem::path& tmpl, const std::filesystem::path& folder);

}  // namespace retrylab::papers
