import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore

/// One bandwidth budget shared by every upload of an engine (`--limit-rate`):
/// each body write is cut into pieces, and each piece leaves when the budget
/// has room for it. A body holds at most one booking at a time, so uploads
/// running together take turns piece by piece and share the budget evenly.
///
/// Bookings follow the virtual-time rule of a token bucket: a piece is
/// booked at the end of the last booking, or `slack` ago if that was
/// earlier, and moves that end by its length over the rate. Time not used
/// beyond `slack` is not saved up, so an idle spell is never followed by a burst.
final class RateLimiter: Sendable {
    private struct State {
        var bytesPerSecond: Int64?
        /// When the budget is free again.
        var freeAt = NIODeadline.uptimeNanoseconds(0)
    }

    private let state = NIOLockedValueBox(State())
    /// How much unused time a booking may make up for: the largest burst.
    static let slack = TimeAmount.milliseconds(50)

    init(bytesPerSecond: Int64? = nil) {
        state.withLockedValue { $0.bytesPerSecond = bytesPerSecond }
    }

    /// Bytes per second over all uploads; `nil` for no limit. A change
    /// applies from the next piece on.
    var bytesPerSecond: Int64? {
        get { state.withLockedValue { $0.bytesPerSecond } }
        set { state.withLockedValue { $0.bytesPerSecond = newValue.map { max(1, $0) } } }
    }

    /// How large a piece is at `rate`: about 50 a second, so progress moves
    /// smoothly, and never so small that writes cost more than the bytes.
    static func pieceSize(at rate: Int64) -> Int {
        Int(min(256 << 10, max(4 << 10, rate / 50)))
    }

    /// Books `bytes` and says how long to wait before they leave; zero with no limit.
    func book(_ bytes: Int, now: NIODeadline = .now()) -> TimeAmount {
        state.withLockedValue { state in
            guard let rate = state.bytesPerSecond else { return .zero }
            // A piece booked a little late (a timer fires late, a write
            // completes late) keeps its place in the schedule, so lateness
            // does not add up over thousands of pieces.
            let start = max(now - Self.slack, state.freeAt)
            state.freeAt = start + .nanoseconds(Int64(bytes) * 1_000_000_000 / rate)
            return max(.zero, start - now)
        }
    }

    /// Writes `data` through `writer` in pieces that keep to the budget; the
    /// future ends when the last piece was written. Without a limit it is one
    /// write, as if no limiter were there.
    func write(
        _ data: IOData, to writer: @escaping @Sendable (IOData) -> EventLoopFuture<Void>, on eventLoop: any EventLoop
    ) -> EventLoopFuture<Void> {
        guard let rate = bytesPerSecond else { return writer(data) }
        var rest = data
        let piece = Self.split(&rest, first: Self.pieceSize(at: rate))
        let wait = book(piece.readableBytes)
        let written: EventLoopFuture<Void>
        if wait > .zero {
            written = eventLoop.scheduleTask(in: wait) {}.futureResult.flatMap { writer(piece) }
        } else {
            written = writer(piece)
        }
        guard rest.readableBytes > 0 else { return written }
        return written.hop(to: eventLoop).flatMap { self.write(rest, to: writer, on: eventLoop) }
    }

    /// The first `count` bytes of `data`, leaving the rest in `data`.
    static func split(_ data: inout IOData, first count: Int) -> IOData {
        switch data {
        case .byteBuffer(var buffer):
            guard buffer.readableBytes > count, let head = buffer.readSlice(length: count) else {
                data = .byteBuffer(ByteBuffer())
                return .byteBuffer(buffer)
            }
            data = .byteBuffer(buffer)
            return .byteBuffer(head)
        case .fileRegion(var region):
            guard region.readableBytes > count else {
                data = .byteBuffer(ByteBuffer())
                return .fileRegion(region)
            }
            let head = FileRegion(
                fileHandle: region.fileHandle, readerIndex: region.readerIndex, endIndex: region.readerIndex + count)
            region.moveReaderIndex(forwardBy: count)
            data = .fileRegion(region)
            return .fileRegion(head)
        }
    }
}
