/*
 * The terminal witness's few system calls (docs/human-messages.md, "the agent terminal"):
 * refuse debugging of this process, check that it is refused, take the real terminal
 * exclusively, read whether the agent's PTY hides what is typed, and re-execute this program with an
 * environment block that holds no credential (the credential crosses over a pipe).
 * Linux only; elsewhere every call reports it is unsupported and the runner does not witness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <node_api.h>
#ifdef __linux__
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <termios.h>
#endif

static napi_value throw_errno(napi_env env, const char *what) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static napi_value boolean(napi_env env, int value) {
  napi_value result;
  napi_get_boolean(env, value != 0, &result);
  return result;
}

static int int_arg(napi_env env, napi_callback_info info, size_t index, int32_t *out) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc <= index) return 0;
  return napi_get_value_int32(env, argv[index], out) == napi_ok;
}

/* setNonDumpable(): prctl(PR_SET_DUMPABLE, 0) — /proc/<pid>/{environ,mem,fd} and ptrace are refused to the same user */
static napi_value set_non_dumpable(napi_env env, napi_callback_info info) {
  (void)info;
#ifdef __linux__
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return throw_errno(env, "prctl(PR_SET_DUMPABLE)");
  return boolean(env, 1);
#else
  napi_throw_error(env, NULL, "not supported on this system");
  return NULL;
#endif
}

/* isDumpable(): prctl(PR_GET_DUMPABLE) */
static napi_value is_dumpable(napi_env env, napi_callback_info info) {
  (void)info;
#ifdef __linux__
  int r = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (r < 0) return throw_errno(env, "prctl(PR_GET_DUMPABLE)");
  return boolean(env, r);
#else
  return boolean(env, 1);
#endif
}

/* setExclusive(fd, on): TIOCEXCL / TIOCNXCL — while set, nobody but root can open the terminal again */
static napi_value set_exclusive(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t fd;
  bool on;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 || napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_bool(env, argv[1], &on) != napi_ok) {
    napi_throw_type_error(env, NULL, "setExclusive(fd, on)");
    return NULL;
  }
#ifdef __linux__
  if (ioctl(fd, on ? TIOCEXCL : TIOCNXCL) != 0) return throw_errno(env, on ? "ioctl(TIOCEXCL)" : "ioctl(TIOCNXCL)");
  return boolean(env, 1);
#else
  napi_throw_error(env, NULL, "not supported on this system");
  return NULL;
#endif
}

/* isExclusive(fd): TIOCGEXCL where the kernel has it */
static napi_value is_exclusive(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!int_arg(env, info, 0, &fd)) {
    napi_throw_type_error(env, NULL, "isExclusive(fd)");
    return NULL;
  }
#if defined(__linux__) && defined(TIOCGEXCL)
  int excl = 0;
  if (ioctl(fd, TIOCGEXCL, &excl) != 0) return throw_errno(env, "ioctl(TIOCGEXCL)");
  return boolean(env, excl);
#else
  napi_throw_error(env, NULL, "not supported on this system");
  return NULL;
#endif
}

/*
 * lineModes(fd): the ECHO and ICANON flags of the terminal on fd (a PTY master reads its
 * slave's). A password prompt is canonical with echo off; a full-screen TUI is raw (echo off
 * too, but it draws its own).
 */
static napi_value line_modes(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!int_arg(env, info, 0, &fd)) {
    napi_throw_type_error(env, NULL, "lineModes(fd)");
    return NULL;
  }
#ifdef __linux__
  struct termios t;
  if (tcgetattr(fd, &t) != 0) return throw_errno(env, "tcgetattr");
  napi_value result;
  napi_create_object(env, &result);
  napi_set_named_property(env, result, "echo", boolean(env, (t.c_lflag & ECHO) != 0));
  napi_set_named_property(env, result, "canonical", boolean(env, (t.c_lflag & ICANON) != 0));
  return result;
#else
  napi_throw_error(env, NULL, "not supported on this system");
  return NULL;
#endif
}

static char *string_arg(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *s = malloc(length + 1);
  if (!s) return NULL;
  napi_get_value_string_utf8(env, value, s, length + 1, &length);
  return s;
}

static char **string_array(napi_env env, napi_value array) {
  uint32_t n;
  if (napi_get_array_length(env, array, &n) != napi_ok) return NULL;
  char **out = calloc(n + 1, sizeof(char *));
  if (!out) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    napi_get_element(env, array, i, &item);
    out[i] = string_arg(env, item);
    if (!out[i]) return NULL;
  }
  return out;
}

/*
 * reexec(path, argv, envp, payload, fdVariable): writes payload into a new pipe, leaves its read
 * end open across exec, and execve()s path with envp plus `fdVariable=<read fd>`. Returns only on
 * failure (throws). The payload must fit the pipe (64 KiB on Linux); credentials are far smaller.
 */
static napi_value reexec(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    napi_throw_type_error(env, NULL, "reexec(path, argv, envp, payload, fdVariable)");
    return NULL;
  }
  char *path = string_arg(env, argv[0]);
  char **args = string_array(env, argv[1]);
  char **envp = string_array(env, argv[2]);
  char *payload = string_arg(env, argv[3]);
  char *variable = string_arg(env, argv[4]);
  if (!path || !args || !envp || !payload || !variable) {
    napi_throw_type_error(env, NULL, "reexec: bad arguments");
    return NULL;
  }
  int fds[2];
  if (pipe(fds) != 0) return throw_errno(env, "pipe");
  size_t length = strlen(payload);
  if (length > 60000 || write(fds[1], payload, length) != (ssize_t)length) {
    close(fds[0]);
    close(fds[1]);
    errno = EMSGSIZE;
    return throw_errno(env, "reexec: payload");
  }
  close(fds[1]);
  /* the read end survives exec; everything else Node opened is close-on-exec — standard input,
     output and error included (Node marks them so), which must survive as they were: blocking */
  int flags = fcntl(fds[0], F_GETFD);
  fcntl(fds[0], F_SETFD, flags & ~FD_CLOEXEC);
  for (int fd = 0; fd <= 2; fd++) {
    int fdflags = fcntl(fd, F_GETFD);
    if (fdflags >= 0) fcntl(fd, F_SETFD, fdflags & ~FD_CLOEXEC);
    int flflags = fcntl(fd, F_GETFL);
    if (flflags >= 0) fcntl(fd, F_SETFL, flflags & ~O_NONBLOCK);
  }
  size_t n = 0;
  while (envp[n]) n++;
  char **full = calloc(n + 2, sizeof(char *));
  char entry[128];
  snprintf(entry, sizeof entry, "%s=%d", variable, fds[0]);
  memcpy(full, envp, n * sizeof(char *));
  full[n] = entry;
  full[n + 1] = NULL;
  execve(path, args, full);
  int saved = errno;
  close(fds[0]);
  errno = saved;
  return throw_errno(env, "execve");
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"setNonDumpable", NULL, set_non_dumpable, NULL, NULL, NULL, napi_default, NULL},
    {"isDumpable", NULL, is_dumpable, NULL, NULL, NULL, napi_default, NULL},
    {"setExclusive", NULL, set_exclusive, NULL, NULL, NULL, napi_default, NULL},
    {"isExclusive", NULL, is_exclusive, NULL, NULL, NULL, napi_default, NULL},
    {"lineModes", NULL, line_modes, NULL, NULL, NULL, napi_default, NULL},
    {"reexec", NULL, reexec, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
