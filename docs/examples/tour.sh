#!/usr/bin/env sh
# The 60-second tour (README). Run it from the checkout while `npm start` runs in another
# terminal (same directory, so the admin commands open the same store). No model needed:
# docs/examples/stand-in-agent.mjs plays the agents.
set -eu
export WARRANT_URL="${WARRANT_URL:-http://127.0.0.1:7420}"
export WARRANT_CLI="${WARRANT_CLI:-$PWD/dist/cli/main.js}"
warrant() { node "$WARRANT_CLI" "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(eval(process.argv[1]))})' "$1"; }

# 0. The server first: without one, say so in one line and change nothing.
if ! node -e 'fetch(process.argv[1] + "/api/v1/health").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$WARRANT_URL"; then
  echo "tour: no Warrant server answers at $WARRANT_URL: start one with \`npm start\` in another terminal (or set WARRANT_URL to where it runs)." >&2
  exit 1
fi
if [ ! -f "$WARRANT_CLI" ]; then
  echo "tour: $WARRANT_CLI is missing: run it from the checkout after \`npm start\` (or set WARRANT_CLI)." >&2
  exit 1
fi

# 1. You, on the roster (admin commands open the store directly) as the single admin the web UI
#    signs in, with a human token for your own CLI.
warrant users add you --name "You" --admin >/dev/null 2>&1 || true
warrant settings set admin_user you >/dev/null
WARRANT_TOKEN="$(warrant users tokens issue you --json | json v.token)"
export WARRANT_TOKEN

# 2. You ask for something: a session with your words as its prompt (recorded as cli.new_session).
ROUTER="$(warrant sessions create --title "Fix the flaky deploy" --agent-root router --prompt "The deploy fails one time in three; find out why and fix it." --json | json v.session.id)"

# 3. A router picks it up under `warrant run` and spawns two workers through `warrant run`:
#    worker A tells the router something and messages worker B, who replies.
warrant run --session "$ROUTER" -- node docs/examples/stand-in-agent.mjs "$(cat docs/examples/tour-plan.json)"

# 4. The tree, every edge authenticated; and the gate on each session.
warrant sessions tree "$ROUTER"
for id in "$ROUTER" $(warrant sessions list --parent "$ROUTER" --json | json 'v.sessions.map(s=>s.id).sort((a,b)=>a-b).join(" ")'); do
  warrant check "$id" || echo "(exit $?)"
done

# 5. The same tree in the browser, live: open the one-time sign-in link.
warrant users login-link you --url "$WARRANT_URL"
