import Synchronization

/// A resumable kind as the engine knows it: its settings, the checkpoints
/// its driver writes, and the driver each of its tasks gets.
protocol TransferKind: TransferSettings {
    /// Every type of checkpoint its driver writes, which journals name.
    static var checkpoints: [any CheckpointState.Type] { get }
    func makeDriver() -> any TransferDriver
}

/// The resumable kinds this build knows: what reads a journal's settings
/// and checkpoints back, and makes each task's driver.
enum TransferKinds {
    /// The one line a new kind adds.
    static let builtIn: [any TransferKind.Type] = [TusSettings.self, S3Settings.self, GCSSettings.self]

    private static let added = Mutex<[any TransferKind.Type]>([])

    /// A kind that is not built in (the tests' own).
    static func register(_ kind: any TransferKind.Type) {
        added.withLock { kinds in
            if !kinds.contains(where: { $0.kind == kind.kind }) { kinds.append(kind) }
        }
    }

    static var all: [any TransferKind.Type] { builtIn + added.withLock { $0 } }

    static func kind(named name: String) -> (any TransferKind.Type)? {
        all.first { $0.kind == name }
    }

    static func checkpoint(named name: String) -> (any CheckpointState.Type)? {
        all.lazy.flatMap { $0.checkpoints }.first { $0.name == name }
    }
}
