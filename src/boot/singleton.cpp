#include "boot/singleton.h"

#include <unistd.h>

#include "boot/pmi_wire.h"
#include "util/log.h"

namespace ftmpi::boot {

SingletonBootstrap::SingletonBootstrap() : job_id_("singleton-" + std::to_string(getpid())) {}

Status SingletonBootstrap::put(std::string_view key, std::string_view value) {
  // Same limits as PMI, so that a program that works alone also works under a launcher.
  if (!pmi::valid_key(key) || key.size() > pmi::kKeyMax) return Status(Errc::arg, "invalid bootstrap key");
  if (!pmi::valid_value(value) || value.size() > pmi::kValueMax)
    return Status(Errc::arg, "invalid or too long bootstrap value");
  kvs_.insert_or_assign(std::string(key), std::string(value));
  return Status::Ok();
}

Result<std::string> SingletonBootstrap::get(std::string_view key) {
  auto it = kvs_.find(key);
  if (it == kvs_.end()) return Status(Errc::arg, "bootstrap key '" + std::string(key) + "' not found");
  return it->second;
}

void SingletonBootstrap::abort(int code, std::string_view message) {
  if (!message.empty())
    log::error("aborting (code %d): %.*s", code, static_cast<int>(message.size()), message.data());
  int status = code & 0xff;
  _exit(status != 0 ? status : 1);
}

}  // namespace ftmpi::boot
