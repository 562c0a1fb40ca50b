import Foundation
import Glibc

/// A TCP proxy that breaks the network on purpose, in front of a real
/// server: each connection draws, from a seeded generator, the number of
/// request bytes after which it is reset (SO_LINGER 0, so the client sees
/// ECONNRESET), and some connections stall for a while first. Kept-alive
/// connections are cut as readily as new ones. After `cuts` resets it only
/// forwards, so every run ends. See ../shared/PEERS.md ("A fault proxy").
public final class FaultProxy: @unchecked Sendable {
    private let proxy: ProxyProcess
    public var endpoint: String { proxy.endpoint }

    static let script = #"""
        import random, socket, struct, sys, threading, time
        target, out = int(sys.argv[1]), sys.argv[2] + "/state"
        seed, cuts, lo, hi, stall_every, stall = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8])
        rng = random.Random(seed)
        lock = threading.Lock()
        state = {"cuts": 0, "connections": 0, "stalls": 0}
        def save():
            with open(out, "w") as f: f.write("%d %d %d" % (state["cuts"], state["connections"], state["stalls"]))
        def reset(client, upstream, back):
            # Closed only once the thread copying answers back has stopped:
            # a socket closed under a thread blocked on it keeps its number
            # in that thread, and the next accepted connection gets it
            # (answers went to the wrong client). SHUT_RD wakes that thread
            # and puts nothing on the wire; SO_LINGER 0 makes the close a reset.
            for s in (client, upstream):
                try:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    s.shutdown(socket.SHUT_RD)
                except OSError: pass
            back.join(10)
            client.close()
            upstream.close()
        def back(upstream, client):
            try:
                while True:
                    d = upstream.recv(1 << 16)
                    if not d: break
                    client.sendall(d)
            except OSError: pass
            try: client.shutdown(socket.SHUT_WR)
            except OSError: pass
        def serve(client):
            with lock:
                state["connections"] += 1
                cut_at = rng.randint(lo, hi)
                stall_at = rng.randint(0, hi) if stall_every and state["connections"] % stall_every == 0 else None
                save()
            try: upstream = socket.create_connection(("127.0.0.1", target))
            except OSError: return client.close()
            answers = threading.Thread(target=back, args=(upstream, client), daemon=True)
            answers.start()
            seen = 0
            try:
                while True:
                    d = client.recv(1 << 16)
                    if not d: break
                    if stall_at is not None and seen + len(d) >= stall_at:
                        with lock:
                            state["stalls"] += 1
                            save()
                        time.sleep(stall)
                        stall_at = None
                    if seen + len(d) >= cut_at:
                        with lock:
                            cutting = state["cuts"] < cuts
                            if cutting:
                                state["cuts"] += 1
                                save()
                        if cutting:
                            upstream.sendall(d[: cut_at - seen])
                            return reset(client, upstream, answers)
                        cut_at = float("inf")
                    upstream.sendall(d)
                    seen += len(d)
            except OSError: pass
            try: upstream.shutdown(socket.SHUT_WR)
            except OSError: pass
            answers.join()
            client.close()
            upstream.close()
        s = socket.socket()
        s.bind(("127.0.0.1", 0)); s.listen(256)
        save()
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """#

    private init(_ proxy: ProxyProcess) {
        self.proxy = proxy
    }

    /// `cuts` resets in all, each after `bytes` (drawn per connection) of
    /// what the client sent on it; every `stallEvery`th connection (0: none)
    /// also stops forwarding for `stall` seconds at a drawn byte.
    public static func start(
        before endpoint: String, seed: UInt64, cuts: Int, bytes: ClosedRange<Int>, stallEvery: Int = 0,
        stall: Double = 2
    ) async throws -> FaultProxy {
        FaultProxy(
            try await ProxyProcess.start(
                script, before: endpoint,
                arguments: [
                    String(seed), String(cuts), String(bytes.lowerBound), String(bytes.upperBound), String(stallEvery),
                    String(stall),
                ]))
    }

    /// Connections reset so far, connections seen, and stalls.
    public var counts: (cuts: Int, connections: Int, stalls: Int) {
        let fields = proxy.read("state").split(separator: " ").compactMap { Int($0) }
        guard fields.count == 3 else { return (0, 0, 0) }
        return (fields[0], fields[1], fields[2])
    }
}
