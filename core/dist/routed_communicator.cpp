// RoutedCommunicator (see routed_communicator.h).
#include "core/dist/routed_communicator.h"

namespace fts {

RoutedCommunicator::RoutedCommunicator(std::unique_ptr<Communicator> device, std::unique_ptr<Communicator> host)
    : m_device(std::move(device)), m_host(std::move(host)) {
    if (!m_device || !m_host || m_device->rank() != m_host->rank() || m_device->worldSize() != m_host->worldSize())
        throw DistError("a routed communicator needs two communicators of the same rank and world size");
}

}  // namespace fts
