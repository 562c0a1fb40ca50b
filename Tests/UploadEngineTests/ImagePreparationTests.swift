import FormData
import Foundation
import Glibc
import TestSupport
import Testing

@testable import UploadEngine

/// The engine prepares images once per task, ahead of the task's start
/// while others upload, and removes the copies when the task ends.
@Suite struct ImagePreparationTests {
    func photoRequest(_ harness: Harness, _ name: String, settings: ImageSettings) async throws -> UploadRequest {
        let path = harness.files.path + "/" + name
        try await Photos.make(width: 800, height: 600, at: path)
        return UploadRequest(
            url: harness.url, body: .multipart(MultipartForm(parts: [.file("image", path: path)])), retry: fastRetry,
            label: name, images: settings)
    }

    /// One slot, uploads read slowly: while the first photo uploads, the
    /// next ones are prepared, so they start without a "preparing" wait.
    @Test func theNextPhotosArePreparedWhileOneUploads() async throws {
        try await Harness.run(concurrency: 1, configure: { $0.readBytesPerSecond = 200_000 }) { harness in
            let settings = ImageSettings(quality: 95)
            var requests: [UploadRequest] = []
            for n in 1...3 { requests.append(try await photoRequest(harness, "p\(n).jpg", settings: settings)) }
            let ids = try harness.engine.add(batch: requests)
            var results: [TaskSnapshot] = []
            for id in ids { results.append(try await harness.finish(id)) }
            #expect(results.allSatisfy { $0.state == .succeeded })
            #expect(results.allSatisfy { $0.preparedImages.count == 1 })
            let waited = ids.map { id in
                harness.events.snapshots(of: id).contains { $0.note == "preparing images" }
            }
            #expect(waited == [true, false, false], "only the first task waited for its photo")
            // Every prepared copy went with its task.
            let folder = try #require(
                results.first?.preparedImages.first.map { ($0.path as NSString).deletingLastPathComponent })
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    /// A cancelled queued task, prepared ahead, leaves no file behind.
    @Test func aCancelledTaskLeavesNoPreparedFile() async throws {
        try await Harness.run(concurrency: 1, configure: { $0.readBytesPerSecond = 100_000 }) { harness in
            let settings = ImageSettings(quality: 95)
            var requests: [UploadRequest] = []
            for n in 1...2 { requests.append(try await photoRequest(harness, "c\(n).jpg", settings: settings)) }
            let ids = try harness.engine.add(batch: requests)
            try await Task.sleep(for: .milliseconds(800))
            harness.engine.cancel(ids[1], reason: "changed my mind")
            harness.engine.cancel(ids[0], reason: "changed my mind")
            _ = try await harness.finish(ids[0])
            _ = try await harness.finish(ids[1])
            try await Task.sleep(for: .milliseconds(300))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter {
                $0.hasPrefix("hoist-images-")
            }.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: "/tmp/" + $0)) ?? [] }
            #expect(!leftovers.contains { $0.hasSuffix("-c1.jpg") || $0.hasSuffix("-c2.jpg") }, "\(leftovers)")
        }
    }
}

/// The prepared copies of a Hoist that died are removed by the next one.
@Suite struct ImageFolderTests {
    @Test func theFoldersOfDeadHoistsAreRemovedOthersStay() throws {
        let base = TemporaryDirectory()
        // A pid no process has (near pid_max, rarely reached), and this live one.
        var dead: pid_t = 0
        for candidate in stride(from: pid_t(4_000_000), to: 4_000_100, by: 1) where kill(candidate, 0) != 0 {
            dead = candidate
            break
        }
        let deadFolder = base.directory("hoist-images-\(dead)-abc123")
        _ = base.file("hoist-images-\(dead)-abc123/x-photo.jpg", Array("jpeg".utf8))
        let liveFolder = base.directory("hoist-images-\(getpid())-def456")
        let other = base.directory("not-hoist")
        UploadEngine.removeFoldersOfDeadProcesses(in: base.path)
        #expect(!FileManager.default.fileExists(atPath: deadFolder))
        #expect(FileManager.default.fileExists(atPath: liveFolder) && FileManager.default.fileExists(atPath: other))
    }

    /// A tus upload of a photo prepared at quality 100 (about 300 KB), in 64 KiB chunks.
    func tusPhotoRequest(_ harness: Harness, retry: RetryPolicy = fastRetry) async throws -> UploadRequest {
        let path = harness.files.path + "/身份证 正面.jpg"
        try await Photos.make(width: 1200, height: 900, at: path)
        return UploadRequest(
            url: harness.receiver.baseURL + "/files", body: .rawFile(path: path), retry: retry, label: "身份证 正面.jpg",
            transfer: .tus(
                TusSettings(
                    chunkSize: .fixed(64 << 10), metadata: [HeaderField("filename", "身份证 正面.jpg")],
                    checksum: false)),
            images: ImageSettings(quality: 100))
    }

    /// Within a run the prepared copy stays for the retries: a reset
    /// mid-PATCH goes on from the server's offset, with the same bytes.
    @Test func aResetTusUploadOfAPreparedPhotoGoesOnWithTheSameCopy() async throws {
        try await Harness.run(configure: {
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 100_000
        }) { harness in
            let id = try harness.engine.add(try await tusPhotoRequest(harness))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            #expect(done.attempts == 2 && done.resumedFrom ?? 0 > 0, "resumed, not restarted: \(done)")
            let records = harness.receiver.tusRequests()
            #expect(Set(records.compactMap(\.uploadID)).count == 1, "one upload on the server")
            let copies = Set(harness.events.snapshots(of: id).flatMap { $0.preparedImages.map(\.path) })
            #expect(copies.count == 1, "prepared once: \(copies)")
            let name = try #require(records.compactMap(\.savedAs).last)
            let got = try await Photos.inspect(harness.saved.path + "/" + name)
            #expect(got["format"] as? String == "JPEG" && got["width"] as? Int == 900 && got["gps"] as? Bool == false)
            #expect(Int64(try #require(done.preparedImages.first).bytes) == done.progress.totalBytes)
        }
    }

    /// A failed task's copy goes with it, so its upload cannot be
    /// appended to: the server is told (DELETE), and `r` sends a new copy
    /// as a new upload.
    @Test func aFailedTusUploadOfAPreparedPhotoIsRetriedAsANewUpload() async throws {
        try await Harness.run(configure: {
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 100_000
        }) { harness in
            let id = try harness.engine.add(try await tusPhotoRequest(harness, retry: RetryPolicy(maxRetries: 0)))
            let failed = try await harness.finish(id)
            guard case .failed = failed.state else {
                Issue.record("the reset did not fail the task: \(failed.state)")
                return
            }
            let copy = try #require(failed.preparedImages.first?.path)
            #expect(!FileManager.default.fileExists(atPath: copy))
            harness.engine.retry(id)
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            #expect(records.filter { $0.method == "POST" }.count == 2, "a new upload")
            #expect(records.contains { $0.method == "DELETE" }, "the first was terminated")
            let name = try #require(records.compactMap(\.savedAs).last)
            #expect(try await Photos.inspect(harness.saved.path + "/" + name)["width"] as? Int == 900)
        }
    }
}
