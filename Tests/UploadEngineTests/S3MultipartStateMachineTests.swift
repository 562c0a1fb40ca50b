import Crypto
import FormData
import Foundation
import Glibc
import TestSupport
import Testing

@testable import UploadEngine

/// The S3 multipart driver fed decoded answers, with no socket: each test
/// asserts the exchanges it asks for next.
@Suite struct S3MultipartStateMachineTests {
    typealias Machine = S3MultipartStateMachine
    let directory = TemporaryDirectory()
    static let mib: Int64 = 1 << 20

    /// A sparse file of `size` bytes: only its size matters here.
    func file(_ size: Int64) -> (path: String, snapshot: FileSnapshot) {
        let path = directory.path + "/big-\(size).bin"
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        ftruncate(fd, off_t(size))
        close(fd)
        return (path, FileSnapshot(path: path)!)
    }

    func parts(_ sends: [Machine.Exchange]) -> [Int] {
        sends.compactMap { if case .uploadPart(_, let number, _) = $0 { return number } else { return nil } }
    }

    @Test func theAllowanceBoundsThePartsAndFreedSlotsWidenIt() throws {
        let (path, snapshot) = file(40 * Self.mib)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 4, checkpoint: nil)
        m.allowance = 1
        _ = m.handle(.start(file: snapshot))
        #expect(m.handle(.slotsFreed).sends.isEmpty, "no upload yet: nothing to widen")
        #expect(parts(m.handle(.created(uploadID: "u1")).sends) == [1])
        m.allowance = 0
        #expect(m.handle(.slotsFreed).sends.isEmpty, "one part is always allowed, and it is on the wire")
        m.allowance = 3
        #expect(parts(m.handle(.slotsFreed).sends) == [2, 3])
        m.allowance = 9
        #expect(parts(m.handle(.slotsFreed).sends) == [4], "never beyond the part concurrency")
        #expect(m.partsInFlight == 4)
        m.allowance = 2
        #expect(parts(m.handle(.partSent(uploadID: "u1", number: 1, etag: "\"e1\"")).sends).isEmpty)
        #expect(m.partsInFlight == 3)
    }

    @Test func aStreamGoesOnePartAtATimeAndCompletesWhenItEnds() throws {
        var m = Machine(path: "-", partSize: 5 * Self.mib, concurrency: 4, checkpoint: nil, isStream: true)
        #expect(m.handle(.start(file: nil)).sends == [.create])
        #expect(parts(m.handle(.created(uploadID: "u1")).sends) == [1], "one part at a time from a stream")
        #expect(parts(m.handle(.partSent(uploadID: "u1", number: 1, etag: "\"e1\"")).sends) == [2])
        // Part 2 is read and turns out to end the stream, 3 bytes in.
        let ended = m.handle(.streamEnded(length: 5 * Self.mib + 3))
        #expect(ended.sends.isEmpty)
        #expect(ended.checkpoint?.partCount == 2)
        let last = m.handle(.partSent(uploadID: "u1", number: 2, etag: "\"e2\""))
        guard case .complete("u1", let listed)? = last.sends.first else {
            Issue.record("expected CompleteMultipartUpload, got \(last.sends)")
            return
        }
        #expect(listed.map(\.size) == [5 * Self.mib, 3])
    }

    @Test func aStreamLongerThanTenThousandPartsFailsInsteadOfCompleting() throws {
        // The server holds 9,999 parts (a retry asked ListParts); the stream has not ended.
        let held = (1...9_999).map { S3Part(number: $0, etag: "\"e\"", size: 5 * Self.mib) }
        let saved = S3Checkpoint(uploadID: "u1", partSize: 5 * Self.mib, length: 10_000 * 5 * Self.mib, file: nil)
        var m = Machine(path: "-", partSize: 5 * Self.mib, concurrency: 1, checkpoint: saved, isStream: true)
        _ = m.handle(.start(file: nil))
        #expect(parts(m.handle(.listed(uploadID: "u1", held, nextMarker: nil)).sends) == [10_000])
        let step = m.handle(.partSent(uploadID: "u1", number: 10_000, etag: "\"e\""))
        #expect(step.sends.isEmpty)
        guard case .fail(let failure)? = step.end else {
            Issue.record("expected a failure, got \(step)")
            return
        }
        #expect("\(failure)".contains("give a larger --part-size"))
    }

    @Test func freedSlotsSendNothingWhileThePartsAreListed() throws {
        let (path, snapshot) = file(24 * Self.mib)
        let saved = S3Checkpoint(uploadID: "u1", partSize: 8 * Self.mib, length: 24 * Self.mib, file: snapshot)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 4, checkpoint: saved)
        #expect(m.handle(.start(file: snapshot)).sends == [.listParts(uploadID: "u1", marker: nil)])
        #expect(m.handle(.slotsFreed).sends.isEmpty)
        let listed = m.handle(
            .listed(uploadID: "u1", [S3Part(number: 2, etag: "\"e2\"", size: 8 * Self.mib)], nextMarker: nil))
        #expect(parts(listed.sends) == [1, 3])
    }

    @Test func createsSendsFourPartsAtATimeThenCompletesInOrder() throws {
        let (path, snapshot) = file(35 * Self.mib)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 4, checkpoint: nil)
        #expect(m.handle(.start(file: snapshot)).sends == [.create])
        let created = m.handle(.created(uploadID: "u1"))
        #expect(created.checkpoint?.uploadID == "u1")
        #expect(created.checkpoint?.partCount == 5)
        #expect(
            created.sends == [
                .uploadPart(uploadID: "u1", number: 1, range: 0..<8 * Self.mib),
                .uploadPart(uploadID: "u1", number: 2, range: 8 * Self.mib..<16 * Self.mib),
                .uploadPart(uploadID: "u1", number: 3, range: 16 * Self.mib..<24 * Self.mib),
                .uploadPart(uploadID: "u1", number: 4, range: 24 * Self.mib..<32 * Self.mib),
            ])
        // Part 3 answers first: part 5 (the short last one) takes its place.
        let third = m.handle(.partSent(uploadID: "u1", number: 3, etag: "\"e3\""))
        #expect(third.sends == [.uploadPart(uploadID: "u1", number: 5, range: 32 * Self.mib..<35 * Self.mib)])
        #expect(third.checkpoint?.parts == [S3Part(number: 3, etag: "\"e3\"", size: 8 * Self.mib)])
        #expect(third.checkpoint?.offset == 8 * Self.mib)
        for number in [5, 1, 4] {
            #expect(m.handle(.partSent(uploadID: "u1", number: number, etag: "\"e\(number)\"")).sends.isEmpty)
        }
        let last = m.handle(.partSent(uploadID: "u1", number: 2, etag: "\"e2\""))
        guard case .complete("u1", let listed)? = last.sends.first else {
            Issue.record("expected CompleteMultipartUpload, got \(last.sends)")
            return
        }
        #expect(listed.map(\.number) == [1, 2, 3, 4, 5])
        #expect(listed.map(\.size).reduce(0, +) == 35 * Self.mib)
        #expect(m.handle(.completed(uploadID: "u1")).end == .done)
    }

    @Test func aResumeListsEveryPageAndSendsOnlyWhatTheServerLacks() {
        let (path, snapshot) = file(40 * Self.mib)
        // The journal said parts 1 and 2; the server got further before the crash.
        let saved = S3Checkpoint(
            uploadID: "u9", partSize: 8 * Self.mib, length: 40 * Self.mib,
            parts: [
                S3Part(number: 1, etag: "\"a\"", size: 8 * Self.mib),
                S3Part(number: 2, etag: "\"b\"", size: 8 * Self.mib),
            ],
            file: snapshot)
        var m = Machine(path: path, partSize: 16 * Self.mib, concurrency: 4, checkpoint: saved)
        #expect(m.partSize == 8 * Self.mib)  // the upload's own part size, not today's choice
        #expect(m.handle(.start(file: snapshot)).sends == [.listParts(uploadID: "u9", marker: nil)])
        let next = m.handle(
            .listed(
                uploadID: "u9",
                [
                    S3Part(number: 1, etag: "\"a\"", size: 8 * Self.mib),
                    S3Part(number: 2, etag: "\"b\"", size: 8 * Self.mib),
                ],
                nextMarker: 2))
        #expect(next.sends == [.listParts(uploadID: "u9", marker: 2)])
        // Part 4 arrived cut short (the crash hit it): it goes again.
        let resumed = m.handle(
            .listed(
                uploadID: "u9",
                [S3Part(number: 3, etag: "\"c\"", size: 8 * Self.mib), S3Part(number: 4, etag: "\"d\"", size: 1000)],
                nextMarker: nil))
        #expect(parts(resumed.sends) == [4, 5])
        #expect(resumed.checkpoint?.parts.map(\.number) == [1, 2, 3])
        #expect(m.resumedFrom == 24 * Self.mib)
    }

    @Test func everyPartOnTheServerGoesStraightToComplete() {
        let (path, snapshot) = file(10 * Self.mib)
        let saved = S3Checkpoint(uploadID: "u2", partSize: 8 * Self.mib, length: 10 * Self.mib, file: snapshot)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 4, checkpoint: saved)
        _ = m.handle(.start(file: snapshot))
        let all = [
            S3Part(number: 1, etag: "\"x\"", size: 8 * Self.mib), S3Part(number: 2, etag: "\"y\"", size: 2 * Self.mib),
        ]
        #expect(m.handle(.listed(uploadID: "u2", all, nextMarker: nil)).sends == [.complete(uploadID: "u2", all)])
    }

    @Test func aLostUploadStartsOverOnceAndStaleAnswersAreIgnored() {
        let (path, snapshot) = file(20 * Self.mib)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 2, checkpoint: nil)
        _ = m.handle(.start(file: snapshot))
        _ = m.handle(.created(uploadID: "old"))
        let noSuchUpload = Machine.S3Fault.server(
            S3ServerError(status: 404, code: "NoSuchUpload", message: "The specified upload does not exist."))
        let lost = m.handle(
            .failed(.uploadPart(uploadID: "old", number: 1, range: 0..<8 * Self.mib), noSuchUpload))
        #expect(lost.sends == [.create])
        #expect(lost.note == "the server no longer has the multipart upload (NoSuchUpload); starting again from part 1")
        // Part 2 of the lost upload fails the same way, or even answers: neither counts.
        #expect(m.handle(.failed(.uploadPart(uploadID: "old", number: 2, range: 0..<1), noSuchUpload)) == .init())
        #expect(m.handle(.partSent(uploadID: "old", number: 2, etag: "\"z\"")) == .init())
        let fresh = m.handle(.created(uploadID: "new"))
        #expect(parts(fresh.sends) == [1, 2])
        #expect(fresh.checkpoint?.parts == [])
        // Lost again in the same attempt: a failure, named.
        let again = m.handle(.failed(.uploadPart(uploadID: "new", number: 1, range: 0..<1), noSuchUpload))
        #expect(
            again.end == .fail(.httpStatus(404, message: "the server lost the multipart upload again (NoSuchUpload)")))
    }

    @Test func serverErrorsEndTheAttemptByCodeAndAChangedFileIsNeverCompleted() throws {
        let (path, snapshot) = file(20 * Self.mib)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 2, checkpoint: nil)
        _ = m.handle(.start(file: snapshot))
        let denied = S3ServerError(status: 403, code: "AccessDenied", message: "Access Denied")
        let end = m.handle(.failed(.create, .server(denied)))
        #expect(end.end == .fail(.httpStatus(403, message: "AccessDenied: Access Denied")))
        // What other lanes answer after the end is ignored.
        #expect(m.handle(.created(uploadID: "late")) == .init())

        let saved = S3Checkpoint(uploadID: "u3", partSize: 8 * Self.mib, length: 20 * Self.mib, file: snapshot)
        var resumed = Machine(path: path, partSize: 8 * Self.mib, concurrency: 2, checkpoint: saved)
        let grown = file(21 * Self.mib).snapshot
        guard case .fail(.input(.fileChanged(_, _, let detail)))? = resumed.handle(.start(file: grown)).end else {
            Issue.record("a changed file went on")
            return
        }
        #expect(detail.contains("so it is not completed"))
        #expect(resumed.abortion() == .abort(uploadID: "u3"))
    }

    // MARK: - Through a network that cuts and a server that settles late

    /// Parts 1-3 of 24 MiB sent with CRC32 and confirmed; part 2's answer
    /// came, part 3's never did.
    func crcUpload() -> (Machine, FileSnapshot) {
        let (path, snapshot) = file(24 * Self.mib)
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 3, checkpoint: nil, checksum: .crc32)
        _ = m.handle(.start(file: snapshot))
        _ = m.handle(.created(uploadID: "u"))
        _ = m.handle(.partSent(uploadID: "u", number: 1, etag: "\"e1\"", checksum: "c1"))
        _ = m.handle(.partSent(uploadID: "u", number: 2, etag: "\"e2\"", checksum: "c2"))
        return (m, snapshot)
    }

    /// Part 3 of `crcUpload` loses its connection, and the next attempt starts.
    func cutPartThreeAndStartAgain(_ m: inout Machine, _ snapshot: FileSnapshot) -> (
        cut: Machine.Step, restart: Machine.Step
    ) {
        let cut = m.handle(
            .failed(
                .uploadPart(uploadID: "u", number: 3, range: 16 * Self.mib..<24 * Self.mib),
                .transport(.connectionLost("reset"))))
        return (cut, m.handle(.start(file: snapshot)))
    }

    @Test func listedPartsCountOnlyWhenTheirChecksumIsKnownSoTheCompletionIsConsistent() {
        var (m, snapshot) = crcUpload()
        // The cut part 3 ends the attempt; the next one asks the server.
        let (cut, restart) = cutPartThreeAndStartAgain(&m, snapshot)
        #expect(cut.end == .fail(.connectionLost("reset")))
        #expect(restart.sends == [.listParts(uploadID: "u", marker: nil)])
        // SeaweedFS lists no checksums. Part 1 is ours; part 2's ETag is not
        // (another write of it landed); part 3 arrived but its CRC32 is unknown.
        let listed = m.handle(
            .listed(
                uploadID: "u",
                [
                    S3Part(number: 1, etag: "e1", size: 8 * Self.mib),
                    S3Part(number: 2, etag: "\"other\"", size: 8 * Self.mib),
                    S3Part(number: 3, etag: "\"e3\"", size: 8 * Self.mib),
                ], nextMarker: nil))
        #expect(parts(listed.sends) == [2, 3])
        #expect(listed.checkpoint?.parts == [S3Part(number: 1, etag: "e1", size: 8 * Self.mib, checksum: "c1")])
        _ = m.handle(.partSent(uploadID: "u", number: 2, etag: "\"e2b\"", checksum: "c2"))
        let complete = m.handle(.partSent(uploadID: "u", number: 3, etag: "\"e3b\"", checksum: "c3"))
        guard case .complete(_, let all)? = complete.sends.first else {
            Issue.record("no completion: \(complete)")
            return
        }
        #expect(all.map(\.checksum) == ["c1", "c2", "c3"])
    }

    /// SeaweedFS lists a part number once per upload of it. The completion
    /// must name each part once: counted twice, the parts never made the
    /// whole file and the upload waited for nothing (a hang seen in CI).
    @Test func aPartListedTwiceCountsOnceAndTheUploadCompletes() {
        var (m, snapshot) = crcUpload()
        _ = cutPartThreeAndStartAgain(&m, snapshot)
        let listed = m.handle(
            .listed(
                uploadID: "u",
                [
                    S3Part(number: 1, etag: "\"e1\"", size: 8 * Self.mib),
                    S3Part(number: 1, etag: "\"e1\"", size: 8 * Self.mib),
                    S3Part(number: 2, etag: "\"stale\"", size: 8 * Self.mib),
                    S3Part(number: 2, etag: "\"e2\"", size: 8 * Self.mib),
                    // Two copies of a part whose answer never came, with checksums that differ.
                    S3Part(number: 3, etag: "\"x\"", size: 8 * Self.mib, checksum: "a"),
                    S3Part(number: 3, etag: "\"y\"", size: 8 * Self.mib, checksum: "b"),
                ], nextMarker: nil))
        #expect(listed.checkpoint?.parts.map(\.number) == [1, 2])
        #expect(parts(listed.sends) == [3])
        let complete = m.handle(.partSent(uploadID: "u", number: 3, etag: "\"e3\"", checksum: "c3"))
        guard case .complete(_, let all)? = complete.sends.first else {
            Issue.record("no completion: \(complete)")
            return
        }
        #expect(all.map(\.number) == [1, 2, 3])
        #expect(all.map(\.etag) == ["\"e1\"", "\"e2\"", "\"e3\""])
    }

    @Test func aRefusedOrUnansweredCompletionIsCheckedAndSentAgain() {
        var (m, snapshot) = crcUpload()
        let complete = m.handle(.partSent(uploadID: "u", number: 3, etag: "\"e3\"", checksum: "c3"))
        #expect(complete.sends.count == 1)
        let invalid = S3ServerError(status: 400, code: "InvalidRequest", message: "part 3 not found")
        let refused = m.handle(.failed(.complete(uploadID: "u", []), .server(invalid)))
        #expect(refused.end == .recheck(.httpStatus(400, message: "InvalidRequest: part 3 not found")))
        // The next attempt (after the executor's backoff) lists, finds every part as sent, and completes.
        #expect(m.handle(.start(file: snapshot)).sends == [.listParts(uploadID: "u", marker: nil)])
        let again = m.handle(
            .listed(
                uploadID: "u",
                (1...3).map { S3Part(number: $0, etag: "\"e\($0)\"", size: 8 * Self.mib) }, nextMarker: nil))
        #expect(
            again.sends == [
                .complete(
                    uploadID: "u",
                    (1...3).map {
                        S3Part(number: $0, etag: "\"e\($0)\"", size: 8 * Self.mib, checksum: "c\($0)")
                    })
            ])
        // A refusal of the request itself is final.
        let denied = S3ServerError(status: 403, code: "AccessDenied", message: "no")
        #expect(
            m.handle(.failed(.complete(uploadID: "u", []), .server(denied))).end
                == .fail(.httpStatus(403, message: "AccessDenied: no")))
        #expect(Machine.completionInDoubt(.transport(.connectionLost("reset"))))
        #expect(Machine.completionInDoubt(.transport(.httpStatus(503, message: nil))))
        #expect(!Machine.completionInDoubt(.server(S3ServerError(status: 400, code: "MalformedXML", message: ""))))
    }

    @Test func aCompletionWhoseAnswerWasLostIsFoundByTheObjectsETag() throws {
        let md5s = ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"]
        let (path, snapshot) = file(10 * Self.mib)
        let saved = S3Checkpoint(
            uploadID: "u", partSize: 8 * Self.mib, length: 10 * Self.mib,
            parts: [
                S3Part(number: 1, etag: "\"\(md5s[0])\"", size: 8 * Self.mib),
                S3Part(number: 2, etag: md5s[1], size: 2 * Self.mib),
            ], file: snapshot)
        // S3's rule: the MD5 of the parts' binary MD5s, then the part count.
        let digest = Insecure.MD5.hash(data: md5s.flatMap { Hex.bytes($0)! })
        let expected = "\"" + digest.map { String(format: "%02x", $0) }.joined() + "-2\""
        #expect(saved.multipartETag == expected)
        #expect(
            S3Checkpoint(
                uploadID: "u", partSize: 1, length: 1, parts: [S3Part(number: 1, etag: "\"kms-xyz\"", size: 1)],
                file: nil
            ).multipartETag == nil)

        let gone = Machine.S3Fault.server(S3ServerError(status: 404, code: "NoSuchUpload", message: ""))
        var m = Machine(path: path, partSize: 8 * Self.mib, concurrency: 2, checkpoint: saved)
        _ = m.handle(.start(file: snapshot))
        #expect(m.handle(.failed(.listParts(uploadID: "u", marker: nil), gone)).sends == [.headObject])
        let found = m.handle(.objectFound(size: 10 * Self.mib, etag: expected))
        #expect(found.end == .done)
        #expect(found.note?.contains("already holds the whole object") == true)

        // Another object of the same size under the key: the upload starts over.
        var other = Machine(path: path, partSize: 8 * Self.mib, concurrency: 2, checkpoint: saved)
        _ = other.handle(.start(file: snapshot))
        _ = other.handle(.failed(.listParts(uploadID: "u", marker: nil), gone))
        #expect(other.handle(.objectFound(size: 10 * Self.mib, etag: "\"abc-2\"")).sends == [.create])
        // No object at all: the same.
        var none = Machine(path: path, partSize: 8 * Self.mib, concurrency: 2, checkpoint: saved)
        _ = none.handle(.start(file: snapshot))
        _ = none.handle(.failed(.listParts(uploadID: "u", marker: nil), gone))
        #expect(none.handle(.failed(.headObject, .transport(.httpStatus(404, message: nil)))).sends == [.create])
    }
}
