//===- IndexExprTest.cpp - Index expressions of kernel coordinates --------===//

#include "dialect/IndexExpr.h"

#include <gtest/gtest.h>

using mlir::pipe::IndexExpr;

namespace {

TEST(IndexExpr, KnowsTheCoordinatesItReads) {
  IndexExpr c0 = IndexExpr::coordinate(0), c2 = IndexExpr::coordinate(2);
  IndexExpr h = IndexExpr::dim("H");
  IndexExpr e = IndexExpr::min(h - IndexExpr::constant(1) - c2,
                               IndexExpr::constant(3) * c0);
  EXPECT_TRUE(e.dependsOn(0));
  EXPECT_FALSE(e.dependsOn(1));
  EXPECT_TRUE(e.dependsOn(2));
  EXPECT_FALSE((h * IndexExpr::constant(2)).dependsOn(0));
  // Past 63 coordinates, which share a bit, the walk still tells them
  // apart.
  IndexExpr high = IndexExpr::coordinate(70) + h;
  EXPECT_TRUE(high.dependsOn(70));
  EXPECT_FALSE(high.dependsOn(64));
  EXPECT_FALSE(high.dependsOn(5));
  // Substituting a coordinate away forgets it.
  IndexExpr moved = e.substitute([&](int64_t d) {
    return d == 2 ? IndexExpr::constant(7) : IndexExpr();
  });
  EXPECT_FALSE(moved.dependsOn(2));
  EXPECT_TRUE(moved.dependsOn(0));
}

TEST(IndexExpr, AChainOfFlipsStaysLinear) {
  // x[::-1] applied 1001 times: each level asks dependsOn, which once
  // walked the whole chain below it (seconds for 2000 flips). (Fusion
  // cuts chains at 128 maps; linearIn recurses, so more would overflow
  // the sanitizers' stack here.)
  IndexExpr last = IndexExpr::dim("W") - IndexExpr::constant(1);
  IndexExpr e = IndexExpr::coordinate(1);
  for (int i = 0; i < 1001; ++i)
    e = last - e;
  auto line = e.linearIn(1);
  ASSERT_TRUE(line);
  EXPECT_FALSE(line->first.dependsOn(1));
  EXPECT_FALSE(line->second.dependsOn(1));
  EXPECT_FALSE(e.linearIn(0) && e.linearIn(0)->second.dependsOn(0));
}

} // namespace
