import FormData
import Foundation
import Receiver
import UploadEngine

// One multipart upload from this program to a Receiver it starts: the
// three products working together through their public API only.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hoist-consumer-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder + "/saved", withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let photo = folder + "/身份证 正面.jpg"
try Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 4096)).write(to: URL(fileURLWithPath: photo))

let receiver = Receiver(configuration: ReceiverConfiguration(directory: folder + "/saved"))
try await receiver.start()
let engine = UploadEngine()
let form = MultipartForm(parts: [.text("kind", "id-card"), .file("image", path: photo)])
let id = try engine.add(UploadRequest(url: receiver.baseURL + "/upload", body: .multipart(form)))
let result = await engine.result(of: id)
await engine.shutdown()
await receiver.stop()

guard let result, result.state == .succeeded, let response = result.response else {
    print("consumer: the upload did not succeed: \(String(describing: result?.state))")
    exit(1)
}
let saved = try FileManager.default.contentsOfDirectory(atPath: folder + "/saved")
print("consumer: HTTP \(response.status), the receiver saved \(saved.count) file(s)")
exit(response.status == 200 && !saved.isEmpty ? 0 : 1)
