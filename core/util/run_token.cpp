// newRunToken (see run_token.h).
#include "core/util/run_token.h"

#include <iomanip>
#include <random>
#include <sstream>

namespace fts {

std::string newRunToken() {
    std::random_device rd;  // the OS entropy source
    std::ostringstream ss;
    for (int i = 0; i < 4; ++i) ss << std::hex << std::setw(8) << std::setfill('0') << rd();
    return ss.str();
}

}  // namespace fts
