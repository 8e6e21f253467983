// Regular expressions from users' files (a LoRA target_modules string, which PEFT full-matches against module
// names): std::regex (ECMAScript) behind a check of what libstdc++ 12 does not survive. Its parser reads the
// numbers of "{m,n}" and "\N" into a long without an overflow check (undefined behaviour: found by
// fuzz_train_config), and its compiler and matcher recurse per nested group and per repeated state.
#pragma once
#include <regex>
#include <string>

namespace fts {

// Throws std::invalid_argument saying what is wrong: over 4096 characters, more than 64 nested groups, a
// repetition count above 1000, a backreference of more than 2 digits; and std::regex_error for what std::regex
// itself refuses.
std::regex compileUserRegex(const std::string& pattern);

}  // namespace fts
