import AsyncHTTPClient
import FormData
import NIOCore
import NIOPosix

/// Sends one file region as slices, driven from the request's event loop:
/// each finished write queues the next slice on the spot. Driven from a
/// task, each slice would cost two thread wake-ups and a hop back to the loop.
///
/// A mapped slice whose pages are not all in the page cache is mapped on
/// NIO's thread pool (`MAP_POPULATE` would wait for the disk on the event
/// loop); slices still leave in order, as the next waits for it.
final class SlicePump: @unchecked Sendable {
    /// Smaller slices cost more mapping and unmapping; larger ones save
    /// nothing more and hold more memory (bench/README.md).
    static let sliceSize = 2 << 20
    /// Slices with NIO (and, mapped, in memory) at once. One is enough: a
    /// slice is freed once the kernel has copied it into the socket, whose
    /// buffer still holds megabytes to send while the next is mapped.
    static let slicesInFlight = 1

    // Touched only on `eventLoop`.
    private var offset: Int64
    private var inFlight = 0
    private var mapping = false
    private var ended = false
    /// `fill` is running: a write that completes at once calls it again
    /// from inside, and its loop picks that up instead (no recursion per
    /// slice while the socket takes everything).
    private var filling = false

    private let region: FormData.FileRegion
    /// Our own descriptor of the file: each slice first checks the file
    /// against its snapshot through it, so a file cut short fails the upload.
    private let descriptor: Int32
    private let lease: LeasedFile?
    private let sendfileHandle: () throws -> NIOFileHandle
    private let writer: HTTPClient.Body.StreamWriter
    private let eventLoop: any EventLoop
    private let done: EventLoopPromise<Void>

    /// Sends `region`, checked through `descriptor` before each slice:
    /// mapped under `lease` when there is one, else by sendfile through
    /// `sendfileHandle`. The future ends when NIO has written the last
    /// slice, or at the first failure.
    static func send(
        _ region: FormData.FileRegion, descriptor: Int32, lease: LeasedFile?,
        sendfileHandle: @escaping () throws -> NIOFileHandle,
        to writer: HTTPClient.Body.StreamWriter, on eventLoop: any EventLoop
    ) -> EventLoopFuture<Void> {
        let pump = SlicePump(
            region: region, descriptor: descriptor, lease: lease, sendfileHandle: sendfileHandle, writer: writer,
            on: eventLoop)
        // NIO's write futures do not bound the mapped slices: while the
        // connection is writable they succeed before the bytes leave, and
        // the connection may be on another loop. Freed mappings do.
        lease?.whenUnmapped { eventLoop.execute { pump.fill() } }
        eventLoop.execute { pump.fill() }
        return pump.done.futureResult.always { _ in lease?.whenUnmapped(nil) }
    }

    private init(
        region: FormData.FileRegion, descriptor: Int32, lease: LeasedFile?,
        sendfileHandle: @escaping () throws -> NIOFileHandle,
        writer: HTTPClient.Body.StreamWriter, on eventLoop: any EventLoop
    ) {
        self.offset = region.offset
        self.region = region
        self.descriptor = descriptor
        self.lease = lease
        self.sendfileHandle = sendfileHandle
        self.writer = writer
        self.eventLoop = eventLoop
        self.done = eventLoop.makePromise()
    }

    private var end: Int64 { region.offset + region.length }

    /// Queues slices until `slicesInFlight` are with NIO, or mapped.
    private func fill() {
        eventLoop.assertInEventLoop()
        guard !filling else { return }
        filling = true
        defer { filling = false }
        do {
            while !ended, !mapping, inFlight < Self.slicesInFlight, (lease?.liveMappings ?? 0) < Self.slicesInFlight,
                offset < end
            {
                if lease?.breakRequested == true {
                    // Another program waits to write or truncate the file:
                    // what would go out next is no longer the file that was queued.
                    throw FormDataError.fileChanged(
                        field: region.field, path: region.path, detail: "another program opened it to change it")
                }
                // Before each slice: sendfile past the end of a shortened
                // file would stall, not fail.
                try region.verify(descriptor: descriptor)
                let start = offset
                let length = Int(min(Int64(Self.sliceSize), end - start))
                offset += Int64(length)
                if let lease, !lease.isCached(offset: start, length: length) {
                    mapOffLoop(lease, offset: start, length: length)
                } else if let mapped = lease?.map(offset: start, length: length) {
                    write(.byteBuffer(mapped))
                } else {
                    try sendfile(offset: start, length: length)
                }
            }
        } catch {
            fail(error)
            return
        }
        if !ended, !mapping, inFlight == 0, offset == end {
            ended = true
            done.succeed()
        }
    }

    private func mapOffLoop(_ lease: LeasedFile, offset: Int64, length: Int) {
        mapping = true
        NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) { lease.map(offset: offset, length: length) }
            .whenComplete { result in
                self.mapping = false
                guard !self.ended else { return }  // failed meanwhile; the slice is unmapped when dropped
                switch result {
                case .success(let mapped?):
                    self.write(.byteBuffer(mapped))
                    self.fill()
                case .success(nil):
                    do {
                        try self.sendfile(offset: offset, length: length)
                        self.fill()
                    } catch {
                        self.fail(error)
                    }
                case .failure(let error):
                    self.fail(error)
                }
            }
    }

    private func sendfile(offset: Int64, length: Int) throws {
        let handle = try sendfileHandle()
        write(
            .fileRegion(
                NIOCore.FileRegion(fileHandle: handle, readerIndex: Int(offset), endIndex: Int(offset) + length)))
    }

    private func write(_ data: IOData) {
        inFlight += 1
        writer.write(data).hop(to: eventLoop).whenComplete { result in
            self.inFlight -= 1
            switch result {
            case .success: self.fill()
            case .failure(let error): self.fail(error)
            }
        }
    }

    private func fail(_ error: any Error) {
        guard !ended else { return }
        ended = true
        done.fail(error)
    }
}
