// A tensor's shape as error messages write it: "[2, 3, 16]".
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace fts {

inline std::string shapeText(std::span<const int64_t> shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace fts
