#pragma once
// Reading a file a user names as input (a policy file, a load-profile CSV): a regular file of at most
// a given size, read whole. A FIFO, device, socket or folder is refused before a byte is read (a
// pipe that never closes, /dev/zero behind a symlink), and a file larger than the bound is refused
// after reading one byte past it, never read to its end. Also: where a text stops being UTF-8.
// Invariants: read_input_file never blocks on a FIFO (it is opened non-blocking and checked with
// fstat on the opened descriptor, so a file swapped between a check and the open is still checked)
// and never holds more than most + 1 bytes. Shared by every layer (policy/, api/, papers/).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace retrylab {

struct InputFile {
  std::string text;
  std::string refusal;  // empty when read; else why not, as a predicate ("is a FIFO, not a regular file")
};

// The kind of a non-regular file, as a predicate.
inline std::string not_regular(mode_t mode) {
  if (S_ISDIR(mode)) return "is a folder, not a regular file";
  if (S_ISFIFO(mode)) return "is a FIFO (a pipe), not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

inline InputFile read_input_file(const std::string& path, std::size_t most) {
  InputFile f;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    f.refusal = std::string("cannot be read (") + std::strerror(errno) + ")";
    return f;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    f.refusal = std::string("cannot be read (") + std::strerror(errno) + ")";
  } else if (!S_ISREG(st.st_mode)) {
    f.refusal = not_regular(st.st_mode);
  }
  if (!f.refusal.empty()) {
    ::close(fd);
    return f;
  }
  char chunk[1 << 16];
  while (f.text.size() <= most) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      f.refusal = std::string("cannot be read (") + std::strerror(errno) + ")";
      break;
    }
    if (n == 0) break;
    f.text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (f.refusal.empty() && f.text.size() > most) {
    f.refusal = "is over " + std::to_string(most >> 20) + " MiB";
    f.text.clear();
  }
  if (!f.refusal.empty()) f.text.clear();
  return f;
}

// The offset of the first byte of `text` that does not begin or continue a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF count as malformed), or npos.
inline std::size_t first_non_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string_view::npos;
}

// `text` as one printable line of UTF-8 (for a message quoting what a file or caller gave): every
// control byte and every byte that is not part of well-formed UTF-8 becomes "\xNN".
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  static constexpr char hex[] = "0123456789ABCDEF";
  while (!text.empty()) {
    const std::size_t bad = first_non_utf8(text);
    const std::string_view good = text.substr(0, bad);
    for (char c : good) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) {
        out += "\\x";
        out += hex[u >> 4];
        out += hex[u & 15];
      } else {
        out += c;
      }
    }
    if (bad == std::string_view::npos) break;
    const auto u = static_cast<unsigned char>(text[bad]);
    out += "\\x";
    out += hex[u >> 4];
    out += hex[u & 15];
    text.remove_prefix(bad + 1);
  }
  return out;
}

}  // namespace retrylab
