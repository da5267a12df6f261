#pragma once
#include <gtest/gtest.h>

#include "core/device_info.hpp"

// GPU tests report "skipped" without a device, never "passed".
#define SMEMLAB_REQUIRE_GPU()                                                     \
  do {                                                                            \
    if (::smemlab::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"; \
  } while (0)
