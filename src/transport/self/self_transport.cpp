#include "transport/self/self_transport.h"

#include <cstring>
#include <deque>
#include <vector>

namespace ftmpi::transport {
namespace {

class SelfTransport final : public Transport {
 public:
  explicit SelfTransport(int me) : me_(me) {}
  const char* name() const override { return "self"; }
  size_t max_payload() const override { return size_t{1} << 20; }

  bool try_send(int peer, std::span<const std::byte> hdr, std::span<const std::byte> payload) override {
    Frame f;
    f.hdr_len = hdr.size();
    std::memcpy(f.hdr, hdr.data(), hdr.size());
    f.payload.assign(payload.begin(), payload.end());
    queue_.push_back(std::move(f));
    return true;
  }

  int poll(FrameSink& sink) override {
    // Deliver only what was queued before this call: frames the sink sends to itself from on_frame wait
    // for the next poll, so poll() always terminates.
    if (queue_.empty()) return 0;  // the usual case, on every progress pass
    size_t n = queue_.size();
    for (size_t i = 0; i < n; ++i) {
      Frame f = std::move(queue_.front());
      queue_.pop_front();
      sink.on_frame(me_, {f.hdr, f.hdr_len}, f.payload);
    }
    return static_cast<int>(n);
  }

  bool supports_remote_read() const override { return true; }
  Status remote_read(int, void* dst, std::uint64_t remote_addr, size_t len) override {
    std::memcpy(dst, reinterpret_cast<const void*>(remote_addr), len);
    return Status::Ok();
  }

  void wait(int) override {}  // frames to self are queued synchronously; nothing to wait for

 private:
  struct Frame {
    std::byte hdr[kMaxHeader];
    size_t hdr_len = 0;
    std::vector<std::byte> payload;
  };
  int me_;
  std::deque<Frame> queue_;
};

}  // namespace

std::unique_ptr<Transport> make_self_transport(int my_world_rank) {
  return std::make_unique<SelfTransport>(my_world_rank);
}

}  // namespace ftmpi::transport
