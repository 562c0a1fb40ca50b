import CNcursesw
import TerminalUI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The session's one thread of control, in the manner of Bubble Tea and
/// htop: sleep in poll() until a key, a wake, a signal or a deadline, feed
/// the program, and draw when it wants a frame, at most one per
/// `frameInterval`. With nothing due it waits without a timeout, so an
/// idle screen costs no CPU.
struct EventLoop<Program: TerminalProgram> {
    private let program: Program
    private let session: CursesSession
    private let signals: SignalPipe
    private let wake: WakePipe
    private let frameInterval: Duration
    private let clock = ContinuousClock()
    private var renderer = CursesRenderer()
    private var fullRedraw = true
    private var lastFrame: ContinuousClock.Instant?
    private var tickInterval: Duration?
    private var nextTick: ContinuousClock.Instant?
    /// Until then the wake pipe is not watched: see `waitAndDispatch`.
    private var nextWake: ContinuousClock.Instant?
    /// Cleared when the terminal hangs up, so poll() does not report it forever.
    private var watchingInput = true
    private(set) var stats = FrameStats()

    init(program: Program, session: CursesSession, signals: SignalPipe, wake: WakePipe, frameInterval: Duration) {
        self.program = program
        self.session = session
        self.signals = signals
        self.wake = wake
        self.frameInterval = max(frameInterval, .milliseconds(1))
    }

    /// Returns when the program's handle() returns false.
    mutating func run() {
        let wake = self.wake
        program.start(size: session.size, wake: { wake.wake() })
        while true {
            drawIfDue()
            scheduleTick()
            guard waitAndDispatch() else { return }
        }
    }

    // MARK: - Frames

    private var screenIsEmpty: Bool {
        session.size.width <= 0 || session.size.height <= 0
    }

    private var wantsFrame: Bool {
        !screenIsEmpty && (fullRedraw || program.needsRedraw)
    }

    /// When the next frame may be drawn; nil when none is wanted.
    private func nextFrameTime(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard wantsFrame else { return nil }
        guard let lastFrame else { return now }
        return lastFrame + frameInterval
    }

    private mutating func drawIfDue() {
        let now = clock.now
        guard let due = nextFrameTime(now: now), due <= now else { return }
        var grid = Grid(size: session.size)
        program.render(into: &grid)
        let rendered = clock.now
        if fullRedraw { renderer.invalidate() }
        stats.cellsWritten += renderer.draw(grid, on: session)
        fullRedraw = false
        stats.frames += 1
        stats.renderTime += rendered - now
        stats.drawTime += clock.now - rendered
        // Measured from the frame's start, so drawing time does not lower the rate.
        lastFrame = now
    }

    // MARK: - Ticks

    /// Follows the program's tick interval as it changes (e.g. only while uploads run).
    private mutating func scheduleTick() {
        let wanted = program.tickInterval.map { max($0, .milliseconds(1)) }
        if wanted != tickInterval {
            tickInterval = wanted
            nextTick = wanted.map { clock.now + $0 }
        } else if let wanted, nextTick == nil {
            nextTick = clock.now + wanted
        }
    }

    // MARK: - Waiting

    private func pollTimeout() -> Int32 {
        let now = clock.now
        let deadlines = [nextFrameTime(now: now), nextTick, nextWake].compactMap { $0 }
        guard let deadline = deadlines.min() else { return -1 }
        let remaining = now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        // Rounded up: waking a little early would only poll again at once.
        return Int32(clamping: remaining.wholeMilliseconds)
    }

    /// Waits for one round of events and hands them to the program. False
    /// when the program asked to stop.
    ///
    /// Wakes are taken at most once per frame interval; meanwhile the
    /// mailbox gathers what comes (progress coalesced per task). Taken as
    /// they came, 10,000 small uploads woke the loop for almost every batch
    /// of events: the loop's share of a perf profile went from 1,018 samples
    /// to 595. Keys and signals are still read at once.
    private mutating func waitAndDispatch() -> Bool {
        if let wakeAt = nextWake, wakeAt <= clock.now { nextWake = nil }
        let readable = Int16(POLLIN)
        var descriptors = [
            pollfd(fd: watchingInput ? STDIN_FILENO : -1, events: readable, revents: 0),
            pollfd(fd: signals.readFD, events: readable, revents: 0),
            pollfd(fd: nextWake == nil ? wake.readFD : -1, events: readable, revents: 0),
        ]
        let ready = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
        if ready < 0 {
            // EINTR: a signal arrived; if it is one of ours its byte is in the pipe.
            // Anything else is unexpected; back off rather than spin.
            if errno != EINTR { usleep(10_000) }
            return true
        }

        if descriptors[1].revents != 0, !dispatchSignals() { return false }
        if descriptors[0].revents != 0 {
            let hungUp = descriptors[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
            guard let count = dispatchKeys() else { return false }
            if hungUp, count == 0 {
                // The terminal is gone. Tell the program as a hangup would, once.
                watchingInput = false
                guard program.handle(.signal(SIGHUP)) else { return false }
            }
        }
        if descriptors[2].revents != 0, wake.drain() {
            nextWake = clock.now + frameInterval
            guard program.handle(.wake) else { return false }
        }
        if let tick = nextTick, tick <= clock.now {
            nextTick = nil
            guard program.handle(.tick) else { return false }
        }
        return true
    }

    // MARK: - Inputs

    private mutating func dispatchSignals() -> Bool {
        let received = signals.drain()
        // Any number of SIGWINCH in one batch is one resize.
        if received.contains(SIGWINCH), !resize() { return false }
        for signal in received where SignalPipe.terminating.contains(signal) {
            guard program.handle(.signal(signal)) else { return false }
        }
        return true
    }

    private mutating func resize() -> Bool {
        let size = session.adoptTerminalSize()
        renderer.invalidate()
        fullRedraw = true
        guard program.handle(.resize(size)) else { return false }
        // resizeterm queues a KEY_RESIZE in ncurses' own buffer, where poll()
        // cannot see it; read it now (it is dropped below as already handled).
        return dispatchKeys() != nil
    }

    /// Reads keys until ncurses has none left. Returns how many inputs it
    /// read, or nil when the program asked to stop.
    private mutating func dispatchKeys() -> Int? {
        var count = 0
        while true {
            var code: wint_t = 0
            let status = wget_wch(session.window, &code)
            if status == hoist_ERR() { return count }
            count += 1
            switch KeyDecoder.decode(status: status, code: UInt32(code)) {
            case .key(let key):
                guard program.handle(.key(key)) else { return nil }
            case .mouse:
                var event = MEVENT()
                guard getmouse(&event) == hoist_OK(),
                    let key = KeyDecoder.decodeMouse(buttons: event.bstate, x: event.x, y: event.y)
                else { continue }
                guard program.handle(.key(key)) else { return nil }
            case .resize:
                // Only a size we have not adopted yet is news.
                guard let size = CursesSession.terminalSize(), size != session.size else { continue }
                guard resize() else { return nil }
            case .ignored:
                continue
            }
        }
    }
}
