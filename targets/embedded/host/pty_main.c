/* couplet-embedded-mass: the embedded core and examples/translational_mass.c,
 * built for the host and served over a pseudo-terminal or a serial device, so
 * that the core runs end to end without a board. The same main loop serves the
 * other examples: couplet-embedded-tally (examples/tally_counter.c) is built
 * from this file with COUPLET_EXAMPLE=tally_counter. A POSIX main loop standing in
 * for the board's: bytes from the line go to couplet_slave_receive, the loop
 * calls couplet_slave_poll, writes go to the line.
 *
 *   couplet-embedded-mass --serial pty|DEVICE [--baud N] [--realtime] [--once]
 *                         [--session-timeout SECONDS] [--key-file FILE]
 *
 * --key-file: frames are sealed with the pre-shared key in FILE (exactly 32
 * hexadecimal digits, the key's first byte first, optionally one newline; not
 * readable by group or others), as a master with `link: {key_file: FILE}`
 * seals them (docs/embedded.md, "Keys").
 *
 * Prints "translational_mass ready serial PATH" once it listens (what a
 * scenario's `link: {spawn: true, program: ...}` waits for). Exit codes: 0
 * done, 1 runtime error, 2 bad command line. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "couplet_embedded.h"

/* The example served: its header declares the model type COUPLET_EXAMPLE and
 * COUPLET_EXAMPLE_description, COUPLET_EXAMPLE_callbacks. */
#ifndef COUPLET_EXAMPLE
#define COUPLET_EXAMPLE translational_mass
#define COUPLET_EXAMPLE_HEADER "translational_mass.h"
#define COUPLET_PROGRAM "couplet-embedded-mass"
#endif
#include COUPLET_EXAMPLE_HEADER
#define JOIN_(a, b) a##b
#define JOIN(a, b) JOIN_(a, b)
#define EXAMPLE_DESCRIPTION JOIN(COUPLET_EXAMPLE, _description)
#define EXAMPLE_CALLBACKS JOIN(COUPLET_EXAMPLE, _callbacks)

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int signal_number) {
  (void)signal_number;
  stop_requested = 1;
}

static uint64_t monotonic_ns(void* context) {
  struct timespec now;
  (void)context;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Writes everything within 2 s, or gives the frame up (nobody reads the line). */
static void write_line(void* context, const uint8_t* bytes, size_t count) {
  const int descriptor = *(const int*)context;
  const uint64_t deadline = monotonic_ns(NULL) + 2000000000u;
  while (count > 0) {
    const ssize_t written = write(descriptor, bytes, count);
    if (written > 0) {
      bytes += written;
      count -= (size_t)written;
      continue;
    }
    if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return;
    if (monotonic_ns(NULL) >= deadline) return;
    {
      struct pollfd out = {descriptor, POLLOUT, 0};
      poll(&out, 1, 10);
    }
  }
}

static speed_t baud_constant(long baud) {
  switch (baud) {
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    default: return B0;
  }
}

/* Opens a new pseudo-terminal (its other end is for the master) or a serial
 * device, raw. Returns the descriptor, or -1 with a message printed. */
static int open_line(const char* serial, long baud, char* path, size_t path_capacity) {
  struct termios raw;
  int descriptor;
  if (strcmp(serial, "pty") == 0) {
    const char* name;
    descriptor = posix_openpt(O_RDWR | O_NOCTTY);
    if (descriptor < 0 || grantpt(descriptor) != 0 || unlockpt(descriptor) != 0 ||
        (name = ptsname(descriptor)) == NULL) {
      fprintf(stderr, COUPLET_PROGRAM ": cannot create a pseudo-terminal\n");
      return -1;
    }
    snprintf(path, path_capacity, "%s", name);
    /* The master's end is set raw too when it opens it; ours now, so that
     * nothing is echoed or translated before it does. */
    {
      const int other = open(name, O_RDWR | O_NOCTTY);
      if (other >= 0) {
        if (tcgetattr(other, &raw) == 0) {
          cfmakeraw(&raw);
          tcsetattr(other, TCSANOW, &raw);
        }
        close(other);
      }
    }
  } else {
    const speed_t speed = baud_constant(baud);
    if (speed == B0) {
      fprintf(stderr, COUPLET_PROGRAM ": --baud %ld is not a standard rate\n", baud);
      return -1;
    }
    descriptor = open(serial, O_RDWR | O_NOCTTY);
    if (descriptor < 0 || tcgetattr(descriptor, &raw) != 0) {
      fprintf(stderr, COUPLET_PROGRAM ": serial device '%s': %s\n", serial, strerror(errno));
      return -1;
    }
    cfmakeraw(&raw);
    cfsetispeed(&raw, speed);
    cfsetospeed(&raw, speed);
    tcsetattr(descriptor, TCSANOW, &raw);
    snprintf(path, path_capacity, "%s", serial);
  }
  fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL, 0) | O_NONBLOCK);
  return descriptor;
}

static int usage(const char* problem) {
  fprintf(stderr,
          "%s: %s\n"
          "usage: %s --serial pty|DEVICE [--baud N] [--realtime] [--once]\n"
          "                             [--session-timeout SECONDS] [--key-file FILE]\n",
          COUPLET_PROGRAM, problem, COUPLET_PROGRAM);
  return 2;
}

static int hex_digit(int character) {
  if (character >= '0' && character <= '9') return character - '0';
  if (character >= 'a' && character <= 'f') return character - 'a' + 10;
  if (character >= 'A' && character <= 'F') return character - 'A' + 10;
  return -1;
}

/* Reads the key: the file holds exactly 32 hexadecimal digits, optionally
 * followed by one newline, and no one but its owner may read it. Returns
 * NULL, or why not (the message names the file). */
static const char* read_key_file(const char* path, uint8_t key[COUPLET_KEY_BYTES], char* message,
                                 size_t capacity) {
  char text[2 * COUPLET_KEY_BYTES + 2];
  struct stat status;
  size_t length;
  size_t k;
  int descriptor = open(path, O_RDONLY | O_NOCTTY);
  const char* reason = NULL;
  if (descriptor < 0) {
    snprintf(message, capacity, "--key-file '%s': cannot read it: %s", path, strerror(errno));
    return message;
  }
  if (fstat(descriptor, &status) != 0) {
    reason = strerror(errno);
  } else if (!S_ISREG(status.st_mode)) {
    reason = "not a regular file";
  } else if ((status.st_mode & 077) != 0) {
    snprintf(text, sizeof text, "%04o", (unsigned)(status.st_mode & 07777));
    snprintf(message, capacity,
             "--key-file '%s': its mode %s lets group or others at it; a key others can read "
             "authenticates nobody (chmod 600)",
             path, text);
    close(descriptor);
    return message;
  } else {
    const ssize_t got = read(descriptor, text, sizeof text);
    length = got > 0 ? (size_t)got : 0;
    if (got < 0) {
      reason = strerror(errno);
    } else if (length == sizeof text ||
               !(length == 2 * COUPLET_KEY_BYTES ||
                 (length == 2 * COUPLET_KEY_BYTES + 1 && text[length - 1] == '\n'))) {
      reason = "it must hold exactly 32 hexadecimal digits, optionally followed by one newline";
    } else {
      for (k = 0; k < COUPLET_KEY_BYTES && reason == NULL; ++k) {
        const int high = hex_digit((unsigned char)text[2 * k]);
        const int low = hex_digit((unsigned char)text[2 * k + 1]);
        if (high < 0 || low < 0) {
          reason = "it must hold exactly 32 hexadecimal digits, optionally followed by one newline";
        } else {
          key[k] = (uint8_t)(high * 16 + low);
        }
      }
    }
  }
  close(descriptor);
  if (reason == NULL) return NULL;
  snprintf(message, capacity, "--key-file '%s': %s", path, reason);
  return message;
}

int main(int argc, char** argv) {
  static couplet_slave slave; /* as on a board: static storage, no heap */
  static COUPLET_EXAMPLE model;
  const char* serial = NULL;
  long baud = 115200;
  int once = 0;
  couplet_slave_options options = {false, 3000000000u, NULL};
  static uint8_t key[COUPLET_KEY_BYTES];
  couplet_platform platform;
  char path[256];
  int descriptor;
  int argument;
  const char* problem;

  for (argument = 1; argument < argc; ++argument) {
    const char* word = argv[argument];
    const char* value = argument + 1 < argc ? argv[argument + 1] : NULL;
    if (strcmp(word, "--realtime") == 0) {
      options.realtime = true;
    } else if (strcmp(word, "--once") == 0) {
      once = 1;
    } else if (strcmp(word, "--serial") == 0 && value != NULL) {
      serial = value;
      ++argument;
    } else if (strcmp(word, "--baud") == 0 && value != NULL) {
      char* end;
      baud = strtol(value, &end, 10);
      if (*end != '\0') return usage("--baud needs a number");
      ++argument;
    } else if (strcmp(word, "--session-timeout") == 0 && value != NULL) {
      char* end;
      const double seconds = strtod(value, &end);
      if (*end != '\0' || !(seconds > 0.0 && seconds < 1.0e6))
        return usage("--session-timeout needs a positive number of seconds");
      options.session_timeout_ns = (uint64_t)(seconds * 1e9);
      ++argument;
    } else if (strcmp(word, "--key-file") == 0 && value != NULL) {
      char message[600];
      if (read_key_file(value, key, message, sizeof message) != NULL) {
        fprintf(stderr, COUPLET_PROGRAM ": %s\n", message);
        return 2;
      }
      options.key = key;
      ++argument;
    } else {
      char message[300];
      snprintf(message, sizeof message, "unknown or incomplete option '%s'", word);
      return usage(message);
    }
  }
  if (serial == NULL) return usage("--serial is required");

  descriptor = open_line(serial, baud, path, sizeof path);
  if (descriptor < 0) return 2;
  platform.write = write_line;
  platform.monotonic_ns = monotonic_ns;
  platform.context = &descriptor;
  problem = couplet_slave_init(&slave, &EXAMPLE_DESCRIPTION, &EXAMPLE_CALLBACKS, &model, &platform,
                               &options);
  if (problem != NULL) {
    fprintf(stderr, COUPLET_PROGRAM ": %s\n", problem);
    return 2;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  printf("%s ready serial %s\n", EXAMPLE_DESCRIPTION.name, path);
  fflush(stdout);

  while (!stop_requested) {
    uint8_t bytes[256];
    uint64_t deadline;
    int wait_ms = 10;
    struct pollfd in = {descriptor, POLLIN, 0};
    ssize_t received;
    if (couplet_slave_next_deadline(&slave, &deadline)) {
      const uint64_t now = monotonic_ns(NULL);
      const uint64_t left_ms = deadline > now ? (deadline - now) / 1000000u : 0u;
      if (left_ms < (uint64_t)wait_ms) wait_ms = (int)left_ms;
    }
    if (poll(&in, 1, wait_ms) > 0 && (in.revents & POLLHUP) != 0 && (in.revents & POLLIN) == 0) {
      usleep(2000); /* the master has not opened its end (yet) */
    }
    while ((received = read(descriptor, bytes, sizeof bytes)) > 0) {
      size_t offered = 0;
      while (offered < (size_t)received) {
        offered += couplet_slave_receive(&slave, bytes + offered, (size_t)received - offered);
        couplet_slave_poll(&slave);
      }
    }
    couplet_slave_poll(&slave);
    if (once && couplet_slave_session_ended(&slave)) break;
  }
  {
    const couplet_counters* counters = couplet_slave_counters(&slave);
    fprintf(stderr,
            COUPLET_PROGRAM
            ": %lu frames, %lu rejected, %lu repeats, %lu stale, %lu steps, "
            "%lu unauthenticated\n",
            (unsigned long)counters->frames, (unsigned long)counters->rejected,
            (unsigned long)counters->repeats, (unsigned long)counters->stale,
            (unsigned long)counters->steps, (unsigned long)counters->unauthenticated);
  }
  close(descriptor);
  return 0;
}
