"""A client of cuzk.v1.ProvingEngine written with Python's grpcio, from the
same proving.proto the daemon is built from: not the daemon's own client.

It proves a PoRep C2 the way Curio's Go client asks for one (Prove, the
c1.json wrapper in vanilla_proof, every field Curio fills), sends one request
with a wrong miner id, calls GetStatus and GetMetrics, all on a channel with
grpcio's default options; with --unix-socket it also calls GetStatus over the
daemon's unix socket. It prints what came back as one JSON object on stdout,
the proof as hex. Checking is left to the Rust test that runs it; a failed
RPC other than the refused request ends the script with its status.

Over a unix socket grpcio (since 1.57) sends the socket path, %-encoded, as
the HTTP/2 :authority, which Rust's h2 alone would refuse as malformed
(RST_STREAM, PROTOCOL_ERROR); that channel keeps grpcio's default, so the
call tests the daemon's rewriting of it (src/authority.rs).
"""

import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stubs", required=True, help="directory of the generated cuzk/v1/proving_pb2*.py")
    parser.add_argument("--target", required=True, help="gRPC target, e.g. 127.0.0.1:9820")
    parser.add_argument("--unix-socket", help="the daemon's unix socket, e.g. /run/cuzk/cuzk.sock")
    parser.add_argument("--c1", required=True, help="Curio's c1.json wrapper of the sector's C1 output")
    parser.add_argument("--registered-proof", type=int, required=True, help="Go's abi.RegisteredSealProof")
    parser.add_argument("--sector-size", type=int, required=True)
    parser.add_argument("--sector-number", type=int, required=True)
    parser.add_argument("--miner-id", type=int, required=True)
    args = parser.parse_args()

    sys.path.insert(0, args.stubs)
    import grpc
    from cuzk.v1 import proving_pb2 as pb
    from cuzk.v1 import proving_pb2_grpc as rpc

    with open(args.c1, "rb") as f:
        wrapper = f.read()

    def request(miner_id):
        # As Curio's PoRepSnarkCuzk fills SubmitProofRequest.
        return pb.SubmitProofRequest(
            request_id="porep-%d-%d" % (miner_id, args.sector_number),
            proof_kind=pb.POREP_SEAL_COMMIT,
            sector_size=args.sector_size,
            registered_proof=args.registered_proof,
            priority=pb.NORMAL,
            vanilla_proof=wrapper,
            sector_number=args.sector_number,
            miner_id=miner_id,
        )

    # Curio's client allows 256 MiB messages both ways.
    limit = 256 << 20
    options = [("grpc.max_send_message_length", limit), ("grpc.max_receive_message_length", limit)]
    with grpc.insecure_channel(args.target, options=options) as channel:
        stub = rpc.ProvingEngineStub(channel)
        try:
            stub.SubmitProof(request(args.miner_id + 1))
            refused = {"code": "OK", "message": ""}
        except grpc.RpcError as err:
            refused = {"code": err.code().name, "message": err.details()}
        result = stub.Prove(pb.ProveRequest(submit=request(args.miner_id))).result
        status = stub.GetStatus(pb.GetStatusRequest())
        metrics = stub.GetMetrics(pb.GetMetricsRequest())
    unix_gpus = None
    if args.unix_socket:
        with grpc.insecure_channel("unix://" + args.unix_socket, options=options) as channel:
            unix_status = rpc.ProvingEngineStub(channel).GetStatus(pb.GetStatusRequest())
            unix_gpus = [gpu.name for gpu in unix_status.gpus]

    print(json.dumps({
        "job_id": result.job_id,
        "status": pb.AwaitProofResponse.Status.Name(result.status),
        "error_message": result.error_message,
        "proof_hex": result.proof.hex(),
        "total_ms": result.total_ms,
        "refused": refused,
        "gpus": [gpu.name for gpu in status.gpus],
        "unix_gpus": unix_gpus,
        "queues": [queue.proof_kind for queue in status.queues],
        "total_proofs_completed": status.total_proofs_completed,
        "prometheus_text": metrics.prometheus_text,
    }))


if __name__ == "__main__":
    main()
