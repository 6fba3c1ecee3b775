"""A grpcio client of cuzk.v1.ProvingEngine over TLS with a bearer token,
from the same proving.proto the daemon is built from: not the daemon's own
client.

Against a daemon whose TCP listener requires client certificates (mutual
TLS) and bearer tokens, on channels with grpcio's default options, it calls
GetStatus without a client certificate, then with one but without a token,
then with both; and proves a mul-chain workload with both. It prints what
came back as one JSON object on stdout (a refused call as its status code's
name). Checking is left to the Rust test that runs it.
"""

import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stubs", required=True, help="directory of the generated cuzk/v1/proving_pb2*.py")
    parser.add_argument("--target", required=True, help="gRPC target, e.g. 127.0.0.1:9820")
    parser.add_argument("--ca", required=True, help="PEM of the CA the daemon's certificate chains to")
    parser.add_argument("--cert", required=True, help="PEM of this client's certificate")
    parser.add_argument("--key", required=True, help="PEM of this client's private key")
    parser.add_argument("--token", required=True, help="the bearer token")
    parser.add_argument("--workload-size", type=int, required=True, help="the mul-chain size to prove")
    args = parser.parse_args()

    sys.path.insert(0, args.stubs)
    import grpc
    from cuzk.v1 import proving_pb2 as pb
    from cuzk.v1 import proving_pb2_grpc as rpc

    def read(path):
        with open(path, "rb") as f:
            return f.read()

    ca, cert, key = read(args.ca), read(args.cert), read(args.key)
    bearer = (("authorization", "Bearer " + args.token),)

    def status(credentials, metadata):
        with grpc.secure_channel(args.target, credentials) as channel:
            try:
                reply = rpc.ProvingEngineStub(channel).GetStatus(pb.GetStatusRequest(), metadata=metadata, timeout=30)
                return {"code": "OK", "gpus": [gpu.name for gpu in reply.gpus]}
            except grpc.RpcError as err:
                return {"code": err.code().name, "details": err.details()}

    server_only = grpc.ssl_channel_credentials(root_certificates=ca)
    mutual = grpc.ssl_channel_credentials(root_certificates=ca, private_key=key, certificate_chain=cert)
    answer = {
        "without_certificate": status(server_only, bearer),
        "without_token": status(mutual, None),
        "with_both": status(mutual, bearer),
    }
    with grpc.secure_channel(args.target, mutual) as channel:
        request = pb.SubmitProofRequest(
            request_id="python-tls",
            proof_kind=pb.WORKLOAD_MUL_CHAIN,
            workload_size=args.workload_size,
            workload_partitions=1,
        )
        result = rpc.ProvingEngineStub(channel).Prove(pb.ProveRequest(submit=request), metadata=bearer).result
    answer["prove"] = {
        "status": pb.AwaitProofResponse.Status.Name(result.status),
        "error_message": result.error_message,
        "proof_bytes": len(result.proof),
    }
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
