// api/spelling.hpp: an error's field and the references in its rule, spelled for each front end.
// The CLI spells an id as its flag, Python as its keyword; a value is attached as each front end
// writes it; anything in backquotes that is not a reference stays as it is; spelling twice changes
// nothing.
#include <gtest/gtest.h>

#include <string>

#include "analytic/error.hpp"
#include "api/spelling.hpp"

namespace spelling_test {

namespace {

using retrylab::InputError;
using retrylab::api::ref;
using retrylab::api::spell_text;
using retrylab::api::spelled;
using retrylab::api::spelled_message;
using retrylab::api::Spelling;

TEST(Spelling, AnIdIsAFlagOrAKeyword) {
  EXPECT_EQ(spelled("reject_cost", Spelling::flag), "--reject-cost");
  EXPECT_EQ(spelled("reject_cost", Spelling::keyword), "reject_cost");
  EXPECT_EQ(spelled("--reject-cost", Spelling::keyword), "reject_cost");  // a flag reads back as its id
  EXPECT_EQ(spelled("--reject-cost", Spelling::flag), "--reject-cost");
  EXPECT_EQ(spelled("SPEC", Spelling::flag), "SPEC");                         // a positional argument stays as it is
  EXPECT_EQ(spelled("list_fields", Spelling::keyword), "retrylab.fields()");  // the table's exceptions
  EXPECT_EQ(spelled("max_memory", Spelling::flag), "--max-memory");
}

TEST(Spelling, ReferencesInARuleAreSpelled) {
  const std::string rule = "must be > 0 when `rate` is 0 (give `unit=ms` with `attempt_duration`, `series=BIN`)";
  EXPECT_EQ(spell_text(rule, Spelling::flag),
            "must be > 0 when --rate is 0 (give --unit ms with --attempt-duration, --series BIN)");
  EXPECT_EQ(spell_text(rule, Spelling::keyword),
            "must be > 0 when rate is 0 (give unit=\"ms\" with attempt_duration, series=BIN)");
  EXPECT_EQ(spell_text(ref("limit", "1") + " " + ref("model", "brooker"), Spelling::keyword),
            "limit=1 model=\"brooker\"");
}

TEST(Spelling, OtherBackquotesStayAndSpellingTwiceChangesNothing) {
  for (const char* text : {"got `Two Words`", "got `x", "a `` b", "got `=v`", "got `9a`", "`rate=`"})
    for (const Spelling how : {Spelling::flag, Spelling::keyword}) EXPECT_EQ(spell_text(text, how), text) << text;
  const std::string once = spell_text("needs `policy=FILE` or `strict`", Spelling::keyword);
  EXPECT_EQ(spell_text(once, Spelling::keyword), once);
  EXPECT_EQ(spell_text("x `a` `b` y", Spelling::flag), "x --a --b y");
}

TEST(Spelling, AnErrorIsSpelledWhole) {
  const InputError e("attempt_duration", "is required with `unit=s`: the mean time of one attempt in s");
  EXPECT_EQ(spelled_message(e, Spelling::flag),
            "--attempt-duration is required with --unit s: the mean time of one attempt in s");
  EXPECT_EQ(spelled_message(e, Spelling::keyword),
            "attempt_duration is required with unit=\"s\": the mean time of one attempt in s");
}

}  // namespace

}  // namespace spelling_test
