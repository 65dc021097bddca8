// ScratchPool: buffers are reused per capacity class, aligned, bounded, and huge ones are never cached.
#include "util/scratch_pool.h"

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

namespace ftmpi {
namespace {

TEST(ScratchPool, CapacityClasses) {
  EXPECT_EQ(ScratchPool::capacity_for(0), ScratchPool::kMinClass);
  EXPECT_EQ(ScratchPool::capacity_for(1), ScratchPool::kMinClass);
  EXPECT_EQ(ScratchPool::capacity_for(4097), 8192u);
  EXPECT_EQ(ScratchPool::capacity_for(1u << 20), 1u << 20);
  EXPECT_EQ(ScratchPool::capacity_for((1u << 20) + 1), 2u << 20);
  const std::size_t huge = ScratchPool::kMaxClass + 123;
  EXPECT_EQ(ScratchPool::capacity_for(huge), huge);  // no rounding above the largest class
}

TEST(ScratchPool, ReusesAReleasedBufferOfTheSameClass) {
  ScratchPool pool;
  std::byte* a = pool.acquire(100000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % ScratchPool::kAlign, 0u);
  std::memset(a, 0x5a, 100000);  // the whole requested size is usable
  pool.release(a, 100000);
  EXPECT_EQ(pool.cached_buffers(), 1u);
  EXPECT_EQ(pool.cached_bytes(), ScratchPool::capacity_for(100000));
  std::byte* b = pool.acquire(70000);  // same class (128 KiB)
  EXPECT_EQ(b, a);
  EXPECT_EQ(pool.cached_buffers(), 0u);
  std::byte* c = pool.acquire(70000);  // the cached one is in use: a new buffer
  EXPECT_NE(c, a);
  std::byte* d = pool.acquire(1 << 20);  // another class
  EXPECT_NE(d, a);
  pool.release(b, 70000);
  pool.release(c, 70000);
  pool.release(d, 1 << 20);
  EXPECT_EQ(pool.cached_buffers(), 3u);
}

TEST(ScratchPool, BoundedByBytesAndCount) {
  ScratchPool pool(256 * 1024);
  std::byte* a = pool.acquire(200000);  // 256 KiB class
  std::byte* b = pool.acquire(200000);
  pool.release(a, 200000);
  pool.release(b, 200000);  // over the byte bound: freed
  EXPECT_EQ(pool.cached_buffers(), 1u);
  EXPECT_LE(pool.cached_bytes(), 256u * 1024);

  ScratchPool many;
  std::byte* bufs[ScratchPool::kMaxCached + 4];
  for (auto& p : bufs) p = many.acquire(10);
  for (auto& p : bufs) many.release(p, 10);
  EXPECT_EQ(many.cached_buffers(), ScratchPool::kMaxCached);
}

TEST(ScratchPool, HugeBuffersAreNotCached) {
  ScratchPool pool(std::size_t{1} << 30);
  const std::size_t huge = ScratchPool::kMaxClass + 1;
  std::byte* p = pool.acquire(huge);
  p[huge - 1] = std::byte{1};
  pool.release(p, huge);
  EXPECT_EQ(pool.cached_buffers(), 0u);
  pool.release(nullptr, 10);  // no effect
  EXPECT_EQ(pool.cached_buffers(), 0u);
}

}  // namespace
}  // namespace ftmpi
