// The per-run token that guards a run's rendezvous (core/dist/rendezvous.h): 128 bits from the OS entropy
// source, as 32 hex digits. No LibTorch here: the launcher and the hosts check draw it too.
#pragma once
#include <string>

namespace fts {

std::string newRunToken();

}  // namespace fts
