# Runs a command under a fresh pseudo-terminal (120x40) and types into it, for the
# interactive agent CLI tests. argv[1]: JSON {"cmd": [...], "env": {...}, "cwd": "...",
# "steps": [{"wait": seconds, "until": regex, "until_file": [path, text], "send": "text"} ...],
# "linger": seconds}: each step reads output for `wait` seconds, or until the screen text
# matches `until` / the file contains `text` (then at most `wait` seconds), then types `send`. Prints the terminal
# output (escape sequences removed) on stdout and exits with the child's status (or 124).
import fcntl, json, os, pty, re, select, signal, struct, sys, termios, time

spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.chdir(spec["cwd"])
    os.execvpe(spec["cmd"][0], spec["cmd"], spec["env"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
out = b""

def screen():
    return re.sub(r"\x1b\[[0-9;?<>=]*[a-zA-Z~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-B]?", "", out.decode("utf8", "replace"))

def satisfied(step):
    if "until" in step and re.search(step["until"], screen()):
        return True
    if "until_file" in step:
        path, text = step["until_file"]
        try:
            with open(path, encoding="utf8") as f:
                return text in f.read()
        except OSError:
            return False
    return False

def pump(seconds, step=None):
    global out
    end = time.time() + seconds
    while time.time() < end:
        if step is not None and satisfied(step):
            return True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            out += data
    return True

alive = True
for step in spec["steps"]:
    waits = "until" in step or "until_file" in step
    alive = pump(step.get("wait", 1), step if waits else None) and alive
    if not alive:
        break
    os.write(fd, step["send"].encode())
if alive:
    pump(spec.get("linger", 3))
status = 124
try:
    os.kill(pid, signal.SIGTERM)
except ProcessLookupError:
    pass
for _ in range(100):
    done, code = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(code)
        break
    time.sleep(0.05)
else:
    os.kill(pid, signal.SIGKILL)
sys.stdout.write(screen())
sys.exit(0 if status in (0, -15, 143) else status)
