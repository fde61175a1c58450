// The device-side check for non-finite values finds the first such cell in row-major
// order, on every execution space of the build.
#include <wave2d_TestHelpers.hpp>

#include <limits>

namespace wave2d::test {
namespace {

class FiniteCheckTest : public testing::TestWithParam<std::string> {};

TEST_P(FiniteCheckTest, FindsTheFirstNonFiniteCellInRowMajorOrder) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    FiniteCheck<ExecutionSpace> const check(space);
    std::int32_t const nx = 37, ny = 29;
    std::vector<float> host(std::size_t(nx) * ny, 1.5f);
    using Field = typename Simulation<ExecutionSpace>::field_type;
    Field field("wave2d::test::field", ny, nx);
    auto const upload = [&] {
      Kokkos::deep_copy(field,
                        Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), ny, nx));
    };
    upload();
    EXPECT_FALSE(check.first_non_finite(space, field));

    host[std::size_t(20) * nx + 3] = std::numeric_limits<float>::quiet_NaN();
    host[std::size_t(7) * nx + 30] = -std::numeric_limits<float>::infinity();
    host[std::size_t(28) * nx + 36] = std::numeric_limits<float>::infinity();
    upload();
    auto const cell = check.first_non_finite(space, field);
    ASSERT_TRUE(cell);
    EXPECT_EQ(cell->x, 30);
    EXPECT_EQ(cell->y, 7);

    std::fill(host.begin(), host.end(), 0.0f);
    host.back() = std::numeric_limits<float>::quiet_NaN();
    upload();
    auto const last = check.first_non_finite(space, field);
    ASSERT_TRUE(last);
    EXPECT_EQ(last->x, nx - 1);
    EXPECT_EQ(last->y, ny - 1);
  });
}

// A subview, as a window's owned cells: its cells only, numbered within it.
TEST_P(FiniteCheckTest, ChecksASubviewsCellsOnly) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    FiniteCheck<ExecutionSpace> const check(space);
    std::int32_t const nx = 37, ny = 29;
    std::vector<float> host(std::size_t(nx) * ny, 1.5f);
    host[std::size_t(2) * nx + 30] = std::numeric_limits<float>::quiet_NaN();  // outside
    host[std::size_t(9) * nx + 12] = std::numeric_limits<float>::infinity();   // inside
    using Field = typename Simulation<ExecutionSpace>::field_type;
    Field field("wave2d::test::field", ny, nx);
    Kokkos::deep_copy(field,
                      Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), ny, nx));
    auto const rows = std::pair<int, int>(4, 20);
    auto const columns = std::pair<int, int>(5, 25);
    auto const cell = check.first_non_finite(space, Kokkos::subview(field, rows, columns));
    ASSERT_TRUE(cell);
    EXPECT_EQ(cell->x, 12 - 5);
    EXPECT_EQ(cell->y, 9 - 4);
    EXPECT_FALSE(check.first_non_finite(
        space, Kokkos::subview(field, std::pair<int, int>(10, 29), columns)));
  });
}

INSTANTIATE_TEST_SUITE_P(AllSpaces, FiniteCheckTest, testing::ValuesIn(space_names()),
                         [](testing::TestParamInfo<std::string> const& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace wave2d::test
