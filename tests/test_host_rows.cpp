// The host row loops (core/wave2d_HostRows.hpp) as this CPU runs them (AVX-512F, AVX2 or
// the baseline) against the cell rule's plain loops: the same bits for every row length,
// reading only the cells a row holds (mid[-1] ... mid[n], the other rows [0, n)) and
// writing only next[0] ... next[n - 1].
#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_HostRows.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace wave2d::test {
namespace {

// Room for `floats` floats that ends where an inaccessible page begins (at_end), or
// begins where one ends: a read or write past that side faults. Without mmap: a vector.
class GuardedFloats {
 public:
  GuardedFloats(std::size_t floats, bool at_end) {
#if defined(__linux__)
    page_ = std::size_t(sysconf(_SC_PAGESIZE));
    std::size_t const bytes = (floats * sizeof(float) + page_ - 1) / page_ * page_;
    size_ = bytes + 2 * page_;
    void* const mapped =
        mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<char*>(mapped);
    mprotect(base_, page_, PROT_NONE);
    mprotect(base_ + page_ + bytes, page_, PROT_NONE);
    data_ = reinterpret_cast<float*>(at_end ? base_ + page_ + bytes - floats * sizeof(float)
                                            : base_ + page_);
#else
    (void)at_end;
    fallback_.resize(floats);
    data_ = fallback_.data();
#endif
  }
  ~GuardedFloats() {
#if defined(__linux__)
    munmap(base_, size_);
#endif
  }
  GuardedFloats(GuardedFloats const&) = delete;
  GuardedFloats& operator=(GuardedFloats const&) = delete;
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
#if defined(__linux__)
  char* base_ = nullptr;
  std::size_t page_ = 0, size_ = 0;
#else
  std::vector<float> fallback_;
#endif
};

// The rows of one call, each against a guard on the side `at_end` names.
struct RowsOfRows {
  int n;
  GuardedFloats next, prev, up, mid, down, code, kappa;
  RowsOfRows(int cells, bool at_end)
      : n(cells),
        next(std::size_t(cells), at_end),
        prev(std::size_t(cells), at_end),
        up(std::size_t(cells), at_end),
        mid(std::size_t(cells) + 2, at_end),  // mid[-1] ... mid[n]
        down(std::size_t(cells), at_end),
        code(std::size_t(cells), at_end),
        kappa(std::size_t(cells), at_end) {}
};

void fill(RowsOfRows& rows, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f), damping(0.0f, 0.3f),
      speed(0.05f, 0.25f);
  for (int i = 0; i < rows.n; ++i) {
    rows.prev.data()[i] = value(random);
    rows.up.data()[i] = value(random);
    rows.down.data()[i] = value(random);
    rows.kappa.data()[i] = speed(random);
    int const kind = int(random() % 4);  // plain, damped, wall, source
    rows.code.data()[i] = kind == 0   ? 0.0f
                          : kind == 1 ? damping(random)
                          : kind == 2 ? cell_code::fixed_zero
                                      : -3.0f;
  }
  for (int i = 0; i < rows.n + 2; ++i) rows.mid.data()[i] = value(random);
}

// The expected rows: the cell rule's loops, one cell at a time.
std::vector<float> expected(RowsOfRows const& rows, int form) {
  std::vector<float> next(std::size_t(rows.n), 0.0f);
  float const* mid = rows.mid.data() + 1;
  float const kappa = 0.2f;
  for (int i = 0; i < rows.n; ++i) {
    if (form == 0) {
      update_plain_row_of_rows(&next[i], &rows.prev.data()[i], &rows.up.data()[i], &mid[i],
                               &rows.down.data()[i], kappa, 1);
    } else if (form == 1) {
      update_coded_row_of_rows<true>(&next[i], &rows.prev.data()[i], &rows.up.data()[i], &mid[i],
                                     &rows.down.data()[i], &rows.code.data()[i], nullptr, kappa, 1);
    } else {
      update_coded_row_of_rows<false>(&next[i], &rows.prev.data()[i], &rows.up.data()[i], &mid[i],
                                      &rows.down.data()[i], &rows.code.data()[i],
                                      &rows.kappa.data()[i], 0.0f, 1);
    }
  }
  return next;
}

TEST(HostRows, RowsOfRowsGiveTheCellRulesBitsAndStayInTheirRows) {
  RecordProperty("host_rows_isa", host_rows_isa());
  std::vector<int> lengths;
  for (int n = 0; n <= 70; ++n) lengths.push_back(n);
  for (int n : {95, 96, 97, 1023, 1024, 1088, 1089}) lengths.push_back(n);
  char const* const forms[] = {"plain", "codes, uniform kappa", "codes, kappa per cell"};
  for (bool at_end : {true, false}) {
    for (int n : lengths) {
      for (int form = 0; form < 3; ++form) {
        SCOPED_TRACE(std::string(forms[form]) + ", n = " + std::to_string(n) +
                     (at_end ? ", rows end at a guard page" : ", rows begin at a guard page"));
        RowsOfRows rows(n, at_end);
        fill(rows, std::uint32_t(n * 3 + form));
        float* const next = rows.next.data();
        for (int i = 0; i < n; ++i) next[i] = -7.0f;
        float const* mid = rows.mid.data() + 1;
        if (form == 0) {
          update_rows_plain(next, rows.prev.data(), rows.up.data(), mid, rows.down.data(), 0.2f, n);
        } else {
          update_rows_coded(next, rows.prev.data(), rows.up.data(), mid, rows.down.data(),
                            rows.code.data(), form == 2 ? rows.kappa.data() : nullptr, 0.2f, n);
        }
        std::vector<float> const want = expected(rows, form);
        // An empty row's data() may be null, which memcmp may not be given.
        if (n > 0) ASSERT_EQ(std::memcmp(next, want.data(), sizeof(float) * std::size_t(n)), 0);
      }
    }
  }
}

}  // namespace
}  // namespace wave2d::test
