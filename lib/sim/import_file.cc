// Reading the input files of a trace import (import_file.h).
#include "sim/import_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

#include "fmt/format.h"
#include "qm/core/status.h"

namespace qm::sim::internal {
namespace {

absl::Status CannotRead(const std::string& path, int error) {
  return absl::NotFoundError(fmt::format("cannot read '{}': {}", path, std::strerror(error)));
}

// An open file descriptor, closed when it goes out of scope.
class OpenFile {
 public:
  explicit OpenFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~OpenFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A read-only private mapping of a whole file; the inputs that borrow it share it, and the last
// one unmaps it.
class FileMapping {
 public:
  FileMapping(void* data, size_t size) : data_(data), size_(size) {}
  ~FileMapping() { ::munmap(data_, size_); }
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_;
  size_t size_;
};

// `fd`'s bytes from where it stands to its end. The buffer doubles as it fills: a pipe gives no size.
absl::StatusOr<std::string> ReadToEnd(int fd, const std::string& path) {
  std::string text(size_t{64} << 10, '\0');
  size_t used = 0;
  while (true) {
    if (used == text.size()) text.resize(text.size() * 2);
    const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return CannotRead(path, errno);
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  text.resize(used);
  return text;
}

absl::StatusOr<ImportInput> ReadOpenFile(const OpenFile& file, const std::string& path) {
  QM_ASSIGN_OR_RETURN(std::string text, ReadToEnd(file.fd(), path));
  return ImportInput{.name = path, .text = std::move(text)};
}

}  // namespace

absl::StatusOr<ImportInput> ReadImportFileToString(const std::string& path) {
  const OpenFile file(path);
  if (file.fd() < 0) return CannotRead(path, errno);
  return ReadOpenFile(file, path);
}

absl::StatusOr<ImportInput> ReadImportFile(const std::string& path) {
  const OpenFile file(path);
  if (file.fd() < 0) return CannotRead(path, errno);
  struct stat st {};
  if (::fstat(file.fd(), &st) != 0) return CannotRead(path, errno);
  // An empty regular file may still have content: /proc's files say they are empty.
  if (!S_ISREG(st.st_mode) || st.st_size <= 0) return ReadOpenFile(file, path);
  const size_t size = static_cast<size_t>(st.st_size);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (data == MAP_FAILED) return ReadOpenFile(file, path);  // a file system that cannot map
  // The importers read each file once, front to back: read ahead generously, and let the pages go
  // first under memory pressure.
  ::madvise(data, size, MADV_SEQUENTIAL);
  auto mapping = std::make_shared<const FileMapping>(data, size);
  const std::string_view bytes = mapping->bytes();
  return ImportInput{.name = path, .text = {}, .borrowed = bytes, .owner = std::move(mapping)};
}

}  // namespace qm::sim::internal
