// The library-wide C entry points: version, status names, the per-thread error message, qm_free,
// and the input checks every other file uses.
#include <cstdlib>
#include <mutex>

#include "c/c_api_internal.h"
#include "fmt/format.h"
#include "qm/version.h"

namespace qm::c {
namespace {

// The message of this thread's latest engine-less call. A thread_local: calls on different threads
// never see each other's messages.
std::string& ThreadError() {
  thread_local std::string message;
  return message;
}

#ifndef NDEBUG
// Debug builds: destroyed handles stay allocated (marked dead) until 256 newer ones have been
// destroyed, so a call on a destroyed engine reads a tombstone, not freed memory. Held from a
// global, they are reachable: leak checkers do not report them.
constexpr size_t kTombstones = 256;
std::mutex tombstone_mutex;
std::deque<std::unique_ptr<qm_engine>>& Tombstones() {
  static auto* tombstones = new std::deque<std::unique_ptr<qm_engine>>();
  return *tombstones;
}
#endif

}  // namespace

void SetThreadError(std::string message) { ThreadError() = std::move(message); }

absl::Status CheckVersion(unsigned int version, unsigned int current, std::string_view type) {
  if (version >= 1 && version <= current) return absl::OkStatus();
  // "qm_cycle_summary" -> "QM_CYCLE_SUMMARY_INIT": the macro the caller should have used.
  std::string macro = "QM_";
  for (const char c : type.substr(type.rfind("qm_", 0) == 0 ? 3 : 0)) {
    macro += c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  }
  macro += "_INIT";
  if (version == 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}.version is 0: initialize the struct with {} (docs/c-api.md, ABI rules)", type, macro));
  }
  return absl::InvalidArgumentError(fmt::format(
      "{}.version {} is newer than this library's {} (C API version {}): the program was built "
      "against a newer header",
      type, version, current, QM_C_API_VERSION));
}

void Retire(qm_engine* engine) {
  engine->magic = kDeadMagic;
  engine->engine.reset();
  engine->events.clear();
  engine->event_pod_sets.clear();
  engine->event_flavors.clear();
  engine->event_strings.clear();
  engine->event_cycle_spans.clear();
  engine->event_cycle_names.clear();
  engine->event_pointers.clear();
  engine->event_pod_set_pointers.clear();
  engine->event_flavor_pointers.clear();
  engine->deleted_names.clear();
#ifndef NDEBUG
  std::lock_guard<std::mutex> lock(tombstone_mutex);
  Tombstones().emplace_back(engine);
  if (Tombstones().size() > kTombstones) Tombstones().pop_front();
#else
  delete engine;
#endif
}

bool IsValidUtf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = p + text.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    size_t extra = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      cp = c & 0x07u;
    } else {
      return false;  // a continuation byte first, an overlong 2-byte lead, or beyond U+10FFFF
    }
    if (static_cast<size_t>(end - p) <= extra) return false;
    for (size_t i = 1; i <= extra; ++i) {
      if ((p[i] & 0xC0u) != 0x80u) return false;
      cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    if ((extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    p += extra + 1;
  }
  return true;
}

absl::StatusOr<std::string_view> Text(const char* text, const char* what) {
  if (text == nullptr) return absl::InvalidArgumentError(std::string(what) + " is NULL");
  // strnlen: an unterminated huge buffer is rejected without reading past the limit + 1.
  const size_t size = strnlen(text, kMaxInputBytes + 1);
  if (size > kMaxInputBytes) {
    return absl::ResourceExhaustedError(std::string(what) + " is larger than 512 MiB");
  }
  std::string_view view(text, size);
  if (!IsValidUtf8(view)) {
    return absl::InvalidArgumentError(std::string(what) + " is not valid UTF-8");
  }
  return view;
}

absl::StatusOr<std::string_view> OptionalText(const char* text, const char* what) {
  if (text == nullptr) return std::string_view();
  return Text(text, what);
}

char* CopyOut(std::string_view s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  if (!s.empty()) std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

}  // namespace qm::c

extern "C" {

QM_C_EXPORT const char* qm_version(void) { return QM_VERSION_STRING; }

QM_C_EXPORT int qm_api_version(void) { return QM_C_API_VERSION; }

QM_C_EXPORT int qm_debug_checks(void) {
#ifndef NDEBUG
  return 1;
#else
  return 0;
#endif
}

QM_C_EXPORT const char* qm_status_name(int status) {
  switch (status) {
    case QM_OK: return "OK";
    case QM_CANCELLED: return "CANCELLED";
    case QM_UNKNOWN: return "UNKNOWN";
    case QM_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case QM_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case QM_NOT_FOUND: return "NOT_FOUND";
    case QM_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case QM_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case QM_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case QM_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case QM_ABORTED: return "ABORTED";
    case QM_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case QM_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case QM_INTERNAL: return "INTERNAL";
    case QM_UNAVAILABLE: return "UNAVAILABLE";
    case QM_DATA_LOSS: return "DATA_LOSS";
    case QM_UNAUTHENTICATED: return "UNAUTHENTICATED";
  }
  return "UNKNOWN_STATUS";
}

QM_C_EXPORT const char* qm_last_error(void) { return qm::c::ThreadError().c_str(); }

QM_C_EXPORT void qm_free(void* memory) { std::free(memory); }

}  // extern "C"
