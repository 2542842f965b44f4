// expect_error: asserts that a call throws a given exception type whose
// message contains a given text (the bad-input contract: typed exception, a
// message that says what was wrong). Header-only test support.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace heft::testing {

// Runs `call` once; records a failure if it returns normally, throws another
// type, or throws Exception without `text` in its message.
template <typename Exception, typename Call>
void expect_error(Call&& call, std::string_view text) {
  try {
    call();
    ADD_FAILURE() << "expected an exception whose message contains \"" << text << "\"";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

}  // namespace heft::testing
