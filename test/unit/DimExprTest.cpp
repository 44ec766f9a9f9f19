//===- DimExprTest.cpp - Sizes computed from symbolic dims ----------------===//

#include "core/DimExpr.h"

#include <gtest/gtest.h>

using pipert::DimExpr;

namespace {

std::string canonical(const char *text) {
  std::string error;
  auto expr = DimExpr::parse(text, &error);
  EXPECT_TRUE(expr.has_value()) << text << ": " << error;
  return expr ? expr->str() : "";
}

TEST(DimExpr, EqualSizesHaveEqualText) {
  EXPECT_EQ(canonical("H - 16 - 16"), "H - 32");
  EXPECT_EQ(canonical("W + W"), "2 * W");
  EXPECT_EQ(canonical("(H + 1) * (W + 2)"), canonical("W * H + 2 * H + W + 2"));
  EXPECT_EQ(canonical("3 + C"), "C + 3");
  EXPECT_EQ(canonical("0 - H"), "-H");
  EXPECT_EQ(canonical("ceil(H / 32) * 32"), "32 * ceil(H / 32)");
  EXPECT_EQ(canonical("ceil((H + 1) / 2)"), "ceil((H + 1) / 2)");
  EXPECT_EQ(canonical("min(W, H)"), canonical("min(H, W)"));
  EXPECT_EQ(canonical("min(H - 1, H)"), "H - 1");
  EXPECT_EQ(canonical("max(H - 1, H)"), "H");
  EXPECT_EQ(canonical("H // 1"), "H");
  EXPECT_EQ(canonical("17 // 5 + 7 % 3 + ceil(7 / 2)"), "8");
  EXPECT_EQ(canonical("-7 // 2"), "-4");
  EXPECT_EQ(canonical("-7 % 3"), "2");
  EXPECT_EQ(canonical("H - H"), "0");
}

TEST(DimExpr, CanonicalTextParsesBackToItself) {
  for (const char *text : {"N", "H - 32", "2 * W + 1", "32 * ceil(H / 32)",
                           "floor((H - 224) / 2)", "(H % 32)",
                           "max(H, W) - min(H, W)", "-H"}) {
    std::string once = canonical(text);
    EXPECT_EQ(canonical(once.c_str()), once) << text;
  }
}

TEST(DimExpr, DepthCountsNestedFunctions) {
  EXPECT_EQ(DimExpr::parse("H + 2 * W")->depth(), 0u);
  EXPECT_EQ(DimExpr::parse("ceil(min(H, W) / 2) + H % 3")->depth(), 2u);
  EXPECT_EQ(DimExpr::parse("((((H))))")->depth(), 0u);
}

TEST(DimExpr, DeepSizesParseBack) {
  // Every size str() writes reads back, however deep the ops nested it:
  // a remainder's text in a remainder once took two parentheses a level,
  // so 51 levels of (e + H) % (W + k) did not read back (and pipec
  // crashed on it).
  DimExpr h = DimExpr::symbol("H"), w = DimExpr::symbol("W");
  DimExpr mods = w, mins = w;
  for (int k = 1; k <= 2 * int(DimExpr::kMaxDepth); ++k) {
    mods = DimExpr::mod(mods + h, w + DimExpr::constant(k));
    mins = k % 2 ? DimExpr::min(mins, h + DimExpr::constant(k))
                 : DimExpr::max(mins, h - DimExpr::constant(k));
  }
  for (const DimExpr &deep : {mods, mins}) {
    EXPECT_EQ(deep.depth(), 2 * DimExpr::kMaxDepth);
    std::string error;
    std::optional<DimExpr> back = DimExpr::parse(deep.str(), &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->str(), deep.str());
    EXPECT_EQ(back->evaluate({{"H", 7}, {"W", 1000}}),
              deep.evaluate({{"H", 7}, {"W", 1000}}));
  }
  EXPECT_EQ(DimExpr::mod(DimExpr::mod(w, h), h).str(), "((W % H) % H)");
  // The C writes each operand once: 2 * kMaxDepth calls, not 2^200 terms.
  std::string c = mins.toC("d_");
  EXPECT_LT(c.size(), 200 * 60u);
  EXPECT_EQ(c.find('?'), std::string::npos);
  // Text nested past kMaxTextNesting (parentheses count) is refused, as
  // the parser's recursion would be unbounded.
  std::string error;
  size_t deepest = DimExpr::kMaxTextNesting;
  // 1000 parentheses are 1000 levels (the outermost sum is none), as
  // they are in an expression.
  EXPECT_TRUE(DimExpr::parse(std::string(deepest, '(') + "H" +
                             std::string(deepest, ')')));
  EXPECT_FALSE(DimExpr::parse(std::string(deepest + 1, '(') + "H" +
                                  std::string(deepest + 1, ')'),
                              &error));
  EXPECT_EQ(error, "a size nested more than 1000 levels deep (parentheses "
                   "included)");
}

TEST(DimExpr, EvaluatesOnceNamesAreBound) {
  std::map<std::string, int64_t> sizes{{"H", 250}, {"W", 333}};
  auto value = [&](const char *text) {
    return DimExpr::parse(text)->evaluate(sizes);
  };
  EXPECT_EQ(value("32 * ceil(H / 32)"), 256);
  EXPECT_EQ(value("32 * ceil(W / 32)"), 352);
  EXPECT_EQ(value("floor((H - 224) / 2)"), 13);
  EXPECT_EQ(value("H % 32"), 26);
  EXPECT_EQ(value("min(H, W) - 7"), 243);
  // A sum with a function call in it keeps its parentheses when it is an
  // operand (it once printed as "(H - floor(W / 2) % 3)").
  EXPECT_EQ(value("(H - W // 2) % 3"), (250 - 333 / 2) % 3);
  EXPECT_EQ(DimExpr::parse(DimExpr::parse("(H - W // 2) % 3")->str())
                ->evaluate(sizes),
            (250 - 333 / 2) % 3);
  EXPECT_EQ(value("floor((H - min(H, W)) / 2) + 1"), 1);
  std::string missing;
  EXPECT_FALSE(DimExpr::parse("N + H")->evaluate(sizes, &missing));
  EXPECT_EQ(missing, "N");
  EXPECT_FALSE(DimExpr::parse("H // (W - 333)")->evaluate(sizes, &missing));
  EXPECT_EQ(missing, "");
  DimExpr::Failure failure;
  EXPECT_FALSE(DimExpr::parse("H // (W - 333)")
                   ->evaluate(sizes, &missing, &failure));
  EXPECT_EQ(failure, DimExpr::Failure::DividesByZero);
  // Past the 64-bit integers there is no value (it wrapped).
  std::map<std::string, int64_t> huge{{"N", int64_t(1) << 62}};
  EXPECT_FALSE(DimExpr::parse("4 * N")->evaluate(huge, &missing, &failure));
  EXPECT_EQ(failure, DimExpr::Failure::Overflows);
  EXPECT_FALSE(DimExpr::parse("N + N")->evaluate(huge, &missing, &failure));
  EXPECT_EQ(failure, DimExpr::Failure::Overflows);
  EXPECT_EQ(DimExpr::parse("N + N - 1")->evaluate(huge), std::nullopt);
  EXPECT_EQ(DimExpr::parse("N - 1 + N")->evaluate({{"N", 5}}), 9);
  EXPECT_EQ(pipert::evaluateDim("H - 32", sizes), 218);
  EXPECT_EQ(pipert::evaluateDim("W", sizes), 333);
}

TEST(DimExpr, CachedParsesAreTheParsesRemembered) {
  const std::string text = "max(-min(32 * ceil(W / 32), N), H - 1)";
  std::shared_ptr<const DimExpr> first = DimExpr::parseCached(text);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->str(), DimExpr::parse(text)->str());
  // The second is the first, not a new parse.
  EXPECT_EQ(DimExpr::parseCached(text).get(), first.get());
  std::map<std::string, int64_t> sizes{{"N", 64}, {"H", 1000}, {"W", 1000}};
  EXPECT_EQ(first->evaluate(sizes), 999);
  // What does not parse is not remembered as anything.
  EXPECT_FALSE(DimExpr::parseCached("ceil(W"));
  EXPECT_FALSE(DimExpr::parseCached("ceil(W"));
  // evaluateDim goes through it for what `sizes` does not name.
  EXPECT_EQ(pipert::evaluateDim("32 * ceil(H / 32)", sizes), 1024);
}

TEST(DimExpr, TheLeastIntegerParsesBack) {
  // Its digits alone do not fit 64 bits; negated they are its canonical
  // text, which a type carries (a slice's step of -2^63 made a size of
  // it, and pipec then crashed on the unparsable text).
  for (const char *text :
       {"-9223372036854775808", "N - 9223372036854775808",
        "ceil(N / (-9223372036854775808))", "-9223372036854775807 - 1 + N"}) {
    std::optional<DimExpr> expr = DimExpr::parse(text);
    ASSERT_TRUE(expr.has_value()) << text;
    EXPECT_EQ(DimExpr::parse(expr->str()), expr) << text;
  }
  EXPECT_EQ(DimExpr::parse("-9223372036854775808")->getConstant(), INT64_MIN);
  std::string error;
  EXPECT_FALSE(DimExpr::parse("9223372036854775808", &error));
  EXPECT_FALSE(DimExpr::parse("N - 9223372036854775808 * 2", &error));
}

TEST(DimExpr, ConstantArithmeticPastTheIntegersIsFlagged) {
  // 2^62 * 2 + H had wrapped to H - 2^63 in a type, silently.
  const DimExpr big = DimExpr::constant(int64_t(1) << 62);
  const DimExpr h = DimExpr::symbol("H");
  EXPECT_TRUE((big * DimExpr::constant(2) + h).overflows());
  EXPECT_TRUE((h * big + h * big + h * big).overflows());
  EXPECT_TRUE((DimExpr::constant(INT64_MAX) + DimExpr::constant(1)).overflows());
  EXPECT_TRUE((DimExpr::constant(0) - DimExpr::constant(INT64_MIN)).overflows());
  EXPECT_TRUE(DimExpr::floorDiv(DimExpr::constant(INT64_MIN),
                                DimExpr::constant(-1))
                  .overflows());
  // It spreads to what is made of it.
  EXPECT_TRUE(DimExpr::max(big * DimExpr::constant(4), h).overflows());
  // Near the ends, without passing them.
  EXPECT_FALSE((DimExpr::constant(INT64_MAX) - DimExpr::constant(1)).overflows());
  EXPECT_EQ(DimExpr::ceilDiv(DimExpr::constant(INT64_MIN), DimExpr::constant(3)),
            DimExpr::constant(-3074457345618258602));
  EXPECT_EQ(DimExpr::ceilDiv(DimExpr::constant(INT64_MIN),
                             DimExpr::constant(INT64_MIN)),
            DimExpr::constant(1));
  EXPECT_EQ(DimExpr::parse("ceil(N / 3)")->evaluate({{"N", INT64_MIN}}),
            -3074457345618258602);
  // Parsing refuses it, saying why.
  std::string error;
  EXPECT_FALSE(DimExpr::parse("4611686018427387904 * 2 + H", &error));
  EXPECT_EQ(error, "its constant arithmetic passes the 64-bit integers");
  // An intermediate past them counts, though the end is back inside.
  EXPECT_FALSE(DimExpr::parse("4611686018427387904 * 2 - 1"));
  EXPECT_EQ(DimExpr::parse("4611686018427387903 * 2 + 1")->getConstant(),
            INT64_MAX);
}

TEST(DimExpr, KnowsAFactorOfEveryValue) {
  auto factor = [](const char *text) {
    return DimExpr::parse(text)->knownFactor();
  };
  EXPECT_EQ(factor("32 * ceil(W / 32)"), 32);
  EXPECT_EQ(factor("224"), 224);
  EXPECT_EQ(factor("-12"), 12);
  EXPECT_EQ(factor("W"), 1);
  EXPECT_EQ(factor("8 * W + 4"), 4);
  EXPECT_EQ(factor("6 * H - 9 * W"), 3);
  EXPECT_EQ(factor("16 * W + 1"), 1);
  EXPECT_EQ(factor("H - H"), 0);
  EXPECT_EQ(factor("-9223372036854775808"), int64_t(1) << 62);
  EXPECT_EQ((DimExpr::constant(INT64_MIN) * DimExpr::symbol("W") +
             DimExpr::constant(6))
                .knownFactor(),
            2);
  // Each value is a multiple: 32 * ceil(W / 32) for W = 1000 is 1024.
  EXPECT_EQ(*DimExpr::parse("32 * ceil(W / 32)")->evaluate({{"W", 1000}}) % 32,
            0);
}

TEST(DimExpr, TermsAreCountedOnceMultipliedOut) {
  // 17 names squared: 289 products, but 153 terms once equal ones merge.
  DimExpr sum;
  for (int i = 0; i < 17; ++i)
    sum = sum + DimExpr::symbol("D" + std::to_string(i));
  DimExpr square = sum * sum;
  EXPECT_FALSE(square.tooLarge());
  EXPECT_EQ(*square.evaluate([] {
    std::map<std::string, int64_t> sizes;
    for (int i = 0; i < 17; ++i)
      sizes["D" + std::to_string(i)] = 1;
    return sizes;
  }()),
            289);
  // 23 names: 276 terms.
  for (int i = 17; i < 23; ++i)
    sum = sum + DimExpr::symbol("D" + std::to_string(i));
  EXPECT_TRUE((sum * sum).tooLarge());
  // (D0 + 1) * ... * (D13 + 1): 2^14 terms, refused without multiplying
  // every one out.
  DimExpr product = DimExpr::constant(1);
  for (int i = 0; i < 14; ++i)
    product = product * (DimExpr::symbol("D" + std::to_string(i)) +
                         DimExpr::constant(1));
  EXPECT_TRUE(product.tooLarge());
}

TEST(DimExpr, MalformedTextSaysWhy) {
  std::string error;
  EXPECT_FALSE(DimExpr::parse("H +", &error));
  EXPECT_EQ(error, "expected a size");
  EXPECT_FALSE(DimExpr::parse("ceil(H, 2)", &error));
  EXPECT_EQ(error, "expected '/' in ceil(a / b)");
  EXPECT_FALSE(DimExpr::parse("H $ 2", &error));
  EXPECT_EQ(error, "unexpected '$'");
  EXPECT_FALSE(DimExpr::parse("99999999999999999999", &error));
}

TEST(DimExpr, PrintsAsCWithPrefixedNames) {
  EXPECT_EQ(DimExpr::parse("H - 32")->toC("d_"), "(1LL * d_H + -32LL)");
  EXPECT_EQ(DimExpr::parse("7")->toC("d_"), "(7LL)");
  EXPECT_EQ(DimExpr::parse("min(H, W + 1)")->toC("d_"),
            "(1LL * pipe_dim_min((1LL * d_H), (1LL * d_W + 1LL)))");
}

} // namespace

// The sign test takes names for sizes (never negative) and says "always"
// or "never" only where every value of the names agrees.
TEST(DimExpr, SignsKnownWhateverTheSizes) {
  auto parse = [](const char *text) { return *pipert::DimExpr::parse(text); };
  for (const char *never : {"0", "W", "2 * W + 1", "W * H", "ceil(W / 2)",
                            "floor(W / 3) + 1", "W % 3", "min(W, H)",
                            "max(W, -4)", "max(W - 9, H)", "W // 2"})
    EXPECT_TRUE(parse(never).isNeverNegative()) << never;
  for (const char *always : {"-1", "-W - 1", "W - 2 * W - 1", "-W * H - 3",
                             "-ceil(W / 2) - 1", "min(-1, W)", "W % 3 - 3",
                             "max(-1, -W - 1)", "floor(-1 / (W + 1))",
                             "ceil(-2 / (W + 1)) - 1", "min(W - 2 * W, -1)"})
    EXPECT_TRUE(parse(always).isAlwaysNegative()) << always;
  // Neither, as far as the test can tell: these take both signs (or it
  // cannot see that they do not).
  for (const char *unknown : {"W - H", "-W", "W - 1", "max(W - 9, -1)",
                              "min(W, H - 4)", "W % (H - 3)",
                              "ceil((W - 5) / 2)", "W % 3 - 2",
                              "ceil(-2 / (W + 1))", "floor(H / -2)",
                              "W * H - W - 1", "min(W, H) - max(W, H)"}) {
    EXPECT_FALSE(parse(unknown).isNeverNegative()) << unknown;
    EXPECT_FALSE(parse(unknown).isAlwaysNegative()) << unknown;
  }
}
