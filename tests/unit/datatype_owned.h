// Test helper shared by the datatype unit tests: owns a derived type built by a dt:: constructor for the
// duration of a test (commits it; retires and deletes it at the end, checking the retire succeeded).
#pragma once
#include <gtest/gtest.h>

#include "datatype/datatype.h"
#include "datatype/derived.h"
#include "util/status.h"

namespace ftmpi::dt::testing {

struct Owned {
  explicit Owned(ftmpi::Result<Datatype*> r) {
    EXPECT_TRUE(r.ok()) << r.status().message();
    t = r.ok() ? r.value() : nullptr;
    if (t) commit(t);
  }
  ~Owned() {
    if (t) {
      EXPECT_TRUE(retire(t).ok());
      delete t;  // tests own the object; the library keeps retired ones for stale handles
    }
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Datatype* t;
};

}  // namespace ftmpi::dt::testing
