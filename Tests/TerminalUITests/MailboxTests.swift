import Foundation
import Testing
import UploadEngine

@testable import TerminalUI

@Suite struct MailboxTests {
    @Test func keepsOnlyTheLatestProgressAndWakesOncePerBatch() {
        let box = Mailbox()
        let wakes = Counter()
        box.setWake { wakes.increment() }
        box.post(.engine(.added(Fixtures.task(1, "a", state: .queued))))
        for sent in stride(from: Int64(10), through: 100, by: 10) {
            box.post(.engine(.progress(Fixtures.task(1, "a", state: .sending, sent: sent, total: 100))))
        }
        box.post(.engine(.progress(Fixtures.task(2, "b", state: .sending, sent: 5, total: 100))))
        box.post(.engine(.finished(Fixtures.task(1, "a", state: .succeeded, sent: 100, total: 100))))
        box.post(.engine(.progress(Fixtures.task(1, "a", state: .sending, sent: 100, total: 100))))
        #expect(wakes.value == 1)
        let drained = box.drain().map { message -> String in
            guard case .engine(let event) = message, let s = event.snapshot else { return "?" }
            return "\(s.id) \(s.state.name) \(s.progress.bytesSent)"
        }
        #expect(drained == ["#1 queued 0", "#1 sending 100", "#2 sending 5", "#1 done 100", "#1 sending 100"])
        #expect(box.drain().isEmpty)
        box.post(.interrupted)
        #expect(wakes.value == 2, "a new batch wakes again")
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
