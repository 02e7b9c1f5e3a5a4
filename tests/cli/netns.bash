# Two test hosts: network namespaces $ns0 and $ns1 joined by a veth pair ($v0 10.231.0.1/24, $v1 10.231.0.2/24,
# addresses used only inside them), created here and removed on exit. Sourced by the multi-host tests; exits
# 77 (skipped) with a message where namespaces cannot be made (no CAP_NET_ADMIN).
tag=$$
ns0="mgc0_$tag" ns1="mgc1_$tag" v0="mgv0_$tag" v1="mgv1_$tag"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  ip netns del "$ns0" 2>/dev/null  # deleting a namespace deletes the veth end inside it, and so the pair
  ip netns del "$ns1" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "skip: $*"; exit 77; }

command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
command -v tc >/dev/null || skip "tc is not installed"
ip netns add "$ns0" 2>"$tmp/err" || skip "cannot create network namespaces: $(head -1 "$tmp/err")"
ip netns add "$ns1" 2>"$tmp/err" || skip "cannot create network namespaces: $(head -1 "$tmp/err")"
for n in "$ns0" "$ns1"; do ip -n "$n" link set lo up || fail "lo up in $n"; done
# NETNS_LINK=none: the caller joins the namespaces itself (dev/predict/validate_netns.sh: a delay line).
[ "${NETNS_LINK:-veth}" = none ] && return 0
ip link add "$v0" type veth peer name "$v1" 2>"$tmp/err" || skip "cannot create a veth pair: $(head -1 "$tmp/err")"
ip link set "$v0" netns "$ns0" && ip link set "$v1" netns "$ns1" || fail "moving veth ends into namespaces"
ip -n "$ns0" addr add 10.231.0.1/24 dev "$v0" && ip -n "$ns1" addr add 10.231.0.2/24 dev "$v1" || fail "addresses"
ip -n "$ns0" link set "$v0" up && ip -n "$ns1" link set "$v1" up || fail "veth up"
