// `retrylab run SPEC.toml` and `retrylab reproduce papers/NAME` (docs/cli.md). Parses flags, calls
// the validation gate (papers/gate.hpp: a passing certificate for this build, or --validate to run
// the quick catalogue first), papers::run_study and, for a paper, papers/readme.hpp's README.
// All study logic lives in papers/.
// Built with RETRYLAB_WITH_MPI and run by mpirun with several ranks: the gate and every output stay
// on rank 0, which spreads the points over the ranks (papers/mpi.hpp); the others only compute.
#include <fmt/format.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "analytic/error.hpp"
#include "cli/common.hpp"
#include "papers/gate.hpp"
#include "papers/published.hpp"
#include "papers/readme.hpp"
#include "papers/spec.hpp"
#include "papers/store.hpp"
#include "papers/study.hpp"
#include "validation/certificate.hpp"
#include "validation/escape.hpp"
#ifdef RETRYLAB_WITH_MPI
#include <nlohmann/json.hpp>

#include "papers/mpi.hpp"
#endif

namespace retrylab::cli {

namespace {

namespace fs = std::filesystem;

struct StudyFlags {
  std::string target;  // SPEC.toml or papers/NAME
  std::string scale = "quick";
  std::string out;
  bool resume = false;
  int threads = 0;
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  bool quiet = false;
  bool validate = false;
  bool no_validate = false;
};

#ifdef RETRYLAB_WITH_MPI
std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}
#endif

// `reproduce PAPER` without --out: out/<paper folder name>/, never the paper folder itself (its
// committed results change only when --out names it). Refuses when that default is the paper folder.
fs::path default_reproduce_out(const std::string& target) {
  fs::path paper = fs::path(target).lexically_normal();
  if (paper.filename().empty()) paper = paper.parent_path();  // "papers/NAME/"
  const fs::path out = fs::path("out") / paper.filename();
  std::error_code ec;
  if (fs::equivalent(out, paper, ec))
    throw InputError(
        "--out", fmt::format("must be given to write into the paper folder {} itself (the default, {}, is that folder)",
                             target, out.string()));
  return out;
}

#ifdef RETRYLAB_WITH_MPI
// Under mpirun with more than one rank: rank 0 runs this command as usual (gate, store, outputs,
// progress) and spreads the points over the ranks; the others wait for its decision and compute.
bool distributed() { return papers::mpi::world_size() > 1; }

// A rank > 0: the spec text and certificate come from rank 0 (the folder and the certificate store
// need not be visible here); --threads and --seed come from the same command line.
int serve_study(const StudyFlags& f) {
  const papers::mpi::Decision d = papers::mpi::broadcast_decision({});
  if (d.code != 0) return d.code;  // rank 0 has said why
  const auto go = nlohmann::json::parse(d.payload);
  papers::StudyOptions opt;
  opt.out = go.at("out").get<std::string>();
  opt.threads = f.threads;
  if (f.seed_option && f.seed_option->count() > 0) opt.seed = f.seed;
  opt.quiet = true;
  opt.certificate_id = go.at("certificate").get<std::string>();
  papers::mpi::serve(
      papers::parse_study_text(go.at("text").get<std::string>(), go.at("source").get<std::string>(), f.scale), opt);
  return 0;
}

#endif

// Rank 0 (or the only process): tells the other ranks to stop with `code` when it gives up early.
void release_ranks(int code) {
#ifdef RETRYLAB_WITH_MPI
  if (distributed()) papers::mpi::broadcast_decision({code, ""});
#else
  (void)code;
#endif
}

int run_study_command(const StudyFlags& f, bool reproduce) {
#ifdef RETRYLAB_WITH_MPI
  if (distributed() && papers::mpi::world_rank() != 0) return serve_study(f);
#endif
  bool released = false;  // the other ranks have had rank 0's decision
  try {
    if (f.threads < 0) throw InputError("--threads", fmt::format("must be >= 0, 0 = all cores (got {})", f.threads));
    fs::path spec_file = f.target;
    fs::path out = f.out;
    if (reproduce) {
      spec_file = fs::path(f.target) / "study.toml";
      if (!fs::is_directory(f.target) || !fs::exists(spec_file))
        throw InputError(
            "PAPER",
            fmt::format("must be a paper folder holding study.toml, e.g. papers/cap-is-doing-the-work (got {})",
                        f.target));
      if (out.empty()) out = default_reproduce_out(f.target);
    }
    const papers::StudySpec spec = papers::parse_study_file(spec_file, f.scale);
    if (reproduce && fs::exists(fs::path(f.target) / "published.toml"))  // before the run, not after it
      papers::check_statements(fs::path(f.target) / "published.toml", spec);
    if (out.empty()) out = fs::path("out") / spec.name / spec.scale;
    require_writable_folder(reproduce ? "--out (default: the paper folder)" : "--out", out.string());
    // The gate runs on rank 0 only; its decision goes to every rank.
    papers::GateOptions gate;
    gate.validate = reproduce ? !f.no_validate : f.validate;
    gate.threads = f.threads;
    gate.quiet = f.quiet;
    gate.version = std::string(version);
    const auto cert = papers::pass_gate(gate, out);
    if (!cert) {
      released = true;
      release_ranks(1);
      return 1;
    }
    papers::StudyOptions opt;
    opt.out = out;
    opt.resume = f.resume;
    opt.threads = f.threads;
    if (f.seed_option && f.seed_option->count() > 0) opt.seed = f.seed;
    opt.quiet = f.quiet;
    opt.certificate_id = *cert;
#ifdef RETRYLAB_WITH_MPI
    if (distributed()) {
      const nlohmann::json go = {{"text", read_file(spec_file)},
                                 {"source", spec_file.string()},
                                 {"certificate", *cert},
                                 {"out", out.string()}};
      released = true;
      papers::mpi::broadcast_decision({0, go.dump()});
    }
    const auto outcome = distributed() ? papers::mpi::run_study_master(spec, opt) : papers::run_study(spec, opt);
#else
    const auto outcome = papers::run_study(spec, opt);
#endif
    if (reproduce && fs::exists(fs::path(f.target) / "published.toml"))  // the paper's statements beside the results
      papers::render_published(fs::path(f.target) / "published.toml", spec, out);
    if (reproduce) papers::render_readme(fs::path(f.target) / "README.template.md", out, spec, *cert);
    if (!f.quiet)
      std::fprintf(stderr, "retrylab: %s (%s scale): %lld points run, %lld resumed, %zu files in %s (%.1f s)\n",
                   spec.name.c_str(), spec.scale.c_str(), static_cast<long long>(outcome.points_run),
                   static_cast<long long>(outcome.points_resumed), outcome.outputs.size(), out.string().c_str(),
                   outcome.seconds);
    return 0;
  } catch (const papers::SpecError& e) {
    if (!released) release_ranks(2);
    std::fprintf(stderr, "retrylab: %s\n", validation::one_line(e.what()).c_str());
    return 2;
  } catch (const InputError&) {
    if (!released) release_ranks(2);
    throw;  // main prints it (exit 2)
  } catch (...) {
    if (!released) release_ranks(3);
    throw;
  }
}

void add_common(CLI::App* cmd, StudyFlags& f) {
  cmd->add_option("--scale", f.scale, "quick (minutes on 2 cores) or full (the paper's run counts)")
      ->check(CLI::IsMember({"quick", "full"}))
      ->default_str("quick");
  cmd->add_flag("--resume", f.resume, "Skip the points already recorded in OUT/results.jsonl (after a kill)");
  cmd->add_option("--threads", f.threads, "Engine threads (0 = all cores; results do not depend on it)")
      ->default_val(0);
  f.seed_option = cmd->add_option("--seed", f.seed, "Replace every sweep's seed (default: the spec's seeds)");
  cmd->add_flag("--quiet", f.quiet, "No progress or log lines on stderr");
}

}  // namespace

void add_study_commands(CLI::App& app, Action& action) {
  auto run = std::make_shared<StudyFlags>();
  CLI::App* rc = app.add_subcommand(
      "run",
      "Run a study spec (TOML sweeps) and render its tables and figures; needs a passing validation certificate");
  rc->add_option("SPEC", run->target, "Study spec (TOML)")->required();
  rc->add_option("--out", run->out, "Output folder (default out/<study>/<scale>)");
  add_common(rc, *run);
  rc->add_flag("--validate", run->validate,
               "Run `retrylab validate --quick` first when this build has no passing certificate");
  rc->callback([run, &action] { action = [run] { return run_study_command(*run, false); }; });

  auto rep = std::make_shared<StudyFlags>();
  CLI::App* pc = app.add_subcommand("reproduce",
                                    "Reproduce a paper: run papers/NAME/study.toml, render its outputs and README "
                                    "(validates first if this build has no passing certificate)");
  pc->add_option("PAPER", rep->target, "Paper folder, e.g. papers/cap-is-doing-the-work")->required();
  pc->add_option(
      "--out", rep->out,
      "Output folder (default out/<paper folder name>; name the paper folder to rewrite its committed results)");
  add_common(pc, *rep);
  for (CLI::App* c : {rc, pc})
    c->footer(
        "Validation certificates are looked up in $RETRYLAB_CERTIFICATE_DIR if set, else in the folder "
        "`certificates` beside the retrylab executable (" +
        validation::certificate_dir().string() + ").");
  CLI::Option* validate =
      pc->add_flag("--validate", rep->validate, "Validate first when there is no passing certificate (the default)");
  pc->add_flag("--no-validate", rep->no_validate, "Refuse instead of validating when there is no passing certificate")
      ->excludes(validate);
  pc->callback([rep, &action] { action = [rep] { return run_study_command(*rep, true); }; });
}

}  // namespace retrylab::cli
