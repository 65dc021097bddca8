#include "boot/pmi_server.h"

#include <string>
#include <utility>

#include "boot/pmi_wire.h"

namespace ftmpi::boot {

PmiServer::PmiServer(int size, std::string kvsname)
    : size_(size),
      kvsname_(std::move(kvsname)),
      in_barrier_(static_cast<std::size_t>(size), 0),
      gone_(static_cast<std::size_t>(size), 0),
      gone_how_(static_cast<std::size_t>(size)) {}

void PmiServer::barrier_in(int rank, Outcome& out) {
  if (!in_barrier_[static_cast<std::size_t>(rank)] && !gone_[static_cast<std::size_t>(rank)]) {
    in_barrier_[static_cast<std::size_t>(rank)] = 1;
    ++barrier_count_;
  }
  complete_barrier_if_ready(out);
}

void PmiServer::complete_barrier_if_ready(Outcome& out) {
  if (barrier_count_ == 0 || barrier_count_ < size_ - gone_count_) return;
  for (int r = 0; r < size_; ++r) {
    if (in_barrier_[static_cast<std::size_t>(r)])
      out.replies.push_back({r, pmi::encode("barrier_out", {{"rc", "0"}})});
    in_barrier_[static_cast<std::size_t>(r)] = 0;
  }
  barrier_count_ = 0;
}

PmiServer::Outcome PmiServer::rank_gone(int rank, std::string how) {
  Outcome out;
  if (rank < 0 || rank >= size_ || gone_[static_cast<std::size_t>(rank)]) return out;
  gone_[static_cast<std::size_t>(rank)] = 1;
  gone_how_[static_cast<std::size_t>(rank)] = std::move(how);
  ++gone_count_;
  if (in_barrier_[static_cast<std::size_t>(rank)]) {
    in_barrier_[static_cast<std::size_t>(rank)] = 0;
    --barrier_count_;
  }
  complete_barrier_if_ready(out);
  return out;
}

void PmiServer::rank_back(int rank) {
  if (rank < 0 || rank >= size_ || !gone_[static_cast<std::size_t>(rank)]) return;
  gone_[static_cast<std::size_t>(rank)] = 0;
  gone_how_[static_cast<std::size_t>(rank)].clear();
  --gone_count_;
}

PmiServer::Outcome PmiServer::handle(int rank, std::string_view line) {
  Outcome out;
  auto reply = [&](std::string l) { out.replies.push_back({rank, std::move(l)}); };
  auto fail = [&](std::string why) {
    out.event = Event::protocol_error;
    out.error = std::move(why);
  };
  if (rank < 0 || rank >= size_) {
    fail("request from an unknown rank");
    return out;
  }
  auto parsed = pmi::parse(line);
  if (!parsed.ok()) {
    fail(parsed.status().message());
    reply(pmi::encode("error", {{"rc", "-1"}, {"msg", "malformed_request"}}));
    return out;
  }
  const pmi::Message& m = parsed.value();
  const std::string& cmd = m.cmd;

  if (cmd == "init") {
    int version = m.get_int("pmi_version").value_or(0);
    if (version != 1) {
      reply(pmi::encode("response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "-1"}}));
      fail("client asked for PMI version " + std::to_string(version) + ", only 1 is served");
      return out;
    }
    reply(pmi::encode("response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}}));
    out.event = Event::initialized;
  } else if (cmd == "initack") {
    // PMI_ID handshake: the client learns its rank and size from us.
    std::string sz = std::to_string(size_), rk = std::to_string(rank);
    reply(pmi::encode("initack", {{"rc", "0"}}));
    reply(pmi::encode("set", {{"size", sz}}));
    reply(pmi::encode("set", {{"rank", rk}}));
    reply(pmi::encode("set", {{"debug", "0"}}));
  } else if (cmd == "get_maxes") {
    reply(pmi::encode("maxes", {{"kvsname_max", std::to_string(pmi::kKvsnameMax)},
                                {"keylen_max", std::to_string(pmi::kKeyMax)},
                                {"vallen_max", std::to_string(pmi::kValueMax)},
                                {"rc", "0"}}));
  } else if (cmd == "get_appnum") {
    reply(pmi::encode("appnum", {{"appnum", "0"}, {"rc", "0"}}));
  } else if (cmd == "get_my_kvsname") {
    reply(pmi::encode("my_kvsname", {{"kvsname", kvsname_}, {"rc", "0"}}));
  } else if (cmd == "get_universe_size") {
    reply(pmi::encode("universe_size", {{"size", std::to_string(size_)}, {"rc", "0"}}));
  } else if (cmd == "put") {
    auto kvs = m.get("kvsname");
    auto key = m.get("key");
    auto value = m.get("value");
    if (!kvs || *kvs != kvsname_) {
      reply(pmi::encode("put_result", {{"rc", "-1"}, {"msg", "unknown_kvsname"}}));
    } else if (!key || key->empty() || key->size() > pmi::kKeyMax) {
      reply(pmi::encode("put_result", {{"rc", "-1"}, {"msg", "invalid_key"}}));
    } else if (!value || value->size() > pmi::kValueMax) {
      reply(pmi::encode("put_result", {{"rc", "-1"}, {"msg", "invalid_value"}}));
    } else {
      kvs_.insert_or_assign(std::string(*key), std::string(*value));
      reply(pmi::encode("put_result", {{"rc", "0"}, {"msg", "success"}}));
    }
  } else if (cmd == "get") {
    auto kvs = m.get("kvsname");
    auto key = m.get("key");
    if (!kvs || *kvs != kvsname_) {
      reply(pmi::encode("get_result", {{"rc", "-1"}, {"msg", "unknown_kvsname"}, {"value", "unknown"}}));
    } else if (!key || key->empty()) {
      reply(pmi::encode("get_result", {{"rc", "-1"}, {"msg", "invalid_key"}, {"value", "unknown"}}));
    } else if (key->rfind("ftmpi-gone.", 0) == 0) {
      int r = -1;
      std::string_view num = key->substr(11);
      for (char ch : num) r = (ch >= '0' && ch <= '9' && r < 100000000) ? (r < 0 ? 0 : r) * 10 + (ch - '0') : -2;
      if (r < 0 || r >= size_) {
        reply(pmi::encode("get_result", {{"rc", "-1"}, {"msg", "key_not_found"}, {"value", "unknown"}}));
      } else {
        const std::string& how = gone_how_[static_cast<std::size_t>(r)];
        reply(pmi::encode("get_result", {{"rc", "0"}, {"msg", "success"},
                                         {"value", gone_[static_cast<std::size_t>(r)] ? how : std::string("0")}}));
      }
    } else if (auto it = kvs_.find(*key); it == kvs_.end()) {
      reply(pmi::encode("get_result", {{"rc", "-1"}, {"msg", "key_not_found"}, {"value", "unknown"}}));
    } else {
      reply(pmi::encode("get_result", {{"rc", "0"}, {"msg", "success"}, {"value", it->second}}));
    }
  } else if (cmd == "barrier_in") {
    barrier_in(rank, out);
  } else if (cmd == "finalize") {
    reply(pmi::encode("finalize_ack", {{"rc", "0"}}));
    out.event = Event::finalized;
  } else if (cmd == "abort") {
    out.event = Event::aborted;
    out.abort_code = m.get_int("exitcode").value_or(1);
  } else {
    reply(pmi::encode("error", {{"rc", "-1"}, {"msg", "unknown_command"}}));
    fail("unknown PMI command '" + cmd.substr(0, 64) + "'");
  }
  return out;
}

}  // namespace ftmpi::boot
