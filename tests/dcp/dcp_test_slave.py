#!/usr/bin/env python3
"""A DCP 1.0 slave for couplet's tests, written from the protocol's PDU layouts
(docs/dcp.md), independent of couplet's own codec.

NonRealTime (STC_do_step) and SoftRealTime (a tick of the time resolution on
its own clock, the outputs every CFG_steps ticks). The model: x' = gain * u,
integrated exactly for the held inputs (x += gain * u * dt per step), and
count = the number of steps done (STC_do_step requests, or ticks).
Variables (value references):
  1 x      Output Float64      2 u      Input Float64
  3 gain   Input Int32         4 count  Output Int32
  5 offset Parameter Float64 (x's value at initialization)
  6 label  Input String (never exchanged by couplet)

It checks what a DCP slave must check (receiver, sequence numbers, lengths,
the state a request is allowed in, the expected state) and answers as DCP
says. Faults for the tests, each at the N-th STC_do_step (1-based):
  --nack-step N        refuse it with RSP_nack INVALID_STEPS
  --drop-ack N         do it but lose its RSP_ack
  --garble-ack N       do it but send a malformed PDU in place of its RSP_ack
  --duplicate          send every answer, notification and data PDU twice
  --die-at-step N      exit without answering
  --silent-after N     SoftRealTime: send no outputs after the N-th (still answering)
Prints "READY <port>" once listening; exits after STC_deregister.
"""
import argparse
import socket
import struct
import sys
import threading
import time

ALIVE, CONFIGURATION, PREPARING, PREPARED, CONFIGURING, CONFIGURED = 0, 1, 2, 3, 4, 5
INITIALIZING, INITIALIZED, SENDING_I, SYNCHRONIZING, SYNCHRONIZED = 6, 7, 8, 9, 10
RUNNING, COMPUTING, COMPUTED, SENDING_D, STOPPING, STOPPED = 11, 12, 13, 14, 15, 16

REGISTER, DEREGISTER, PREPARE, CONFIGURE, INITIALIZE, RUN, DO_STEP = 1, 2, 3, 4, 5, 6, 7
SEND_OUTPUTS, STOP, RESET = 8, 9, 10
TIME_RES, STEPS, CFG_INPUT, CFG_OUTPUT, CFG_CLEAR = 0x20, 0x21, 0x22, 0x23, 0x24
TARGET_NET, SOURCE_NET, CFG_PARAMETER, CFG_SCOPE = 0x25, 0x26, 0x27, 0x2B
INF_STATE, INF_ERROR = 0x80, 0x81
RSP_ACK, RSP_NACK, RSP_STATE_ACK, NTF_STATE_CHANGED, DAT = 0xB0, 0xB1, 0xB2, 0xE0, 0xF0

INVALID_LENGTH, INVALID_STATE_ID, INVALID_STEPS = 0x2001, 0x200D, 0x200E
INVALID_SEQUENCE_ID, INVALID_UUID, INVALID_VALUE_REFERENCE = 0x2013, 0x2011, 0x2012
INVALID_OP_MODE, NOT_ALLOWED = 0x2008, 0x1003
INVALID_NETWORK_INFORMATION = 0x2007
NOT_SUPPORTED_PDU = 0x4005

FORMATS = {0: 'B', 1: 'H', 2: 'I', 3: 'Q', 4: 'b', 5: 'h', 6: 'i', 7: 'q', 8: 'f', 9: 'd'}
SIZES = {  # fixed lengths of the requests a slave receives
    REGISTER: 24, DEREGISTER: 5, PREPARE: 5, CONFIGURE: 5, INITIALIZE: 5, RUN: 13,
    DO_STEP: 9, SEND_OUTPUTS: 5, STOP: 5, RESET: 5, TIME_RES: 12, STEPS: 10,
    CFG_INPUT: 17, CFG_OUTPUT: 16, CFG_CLEAR: 4, TARGET_NET: 13, SOURCE_NET: 13,
    CFG_SCOPE: 7, INF_STATE: 4, INF_ERROR: 4,
}
CONFIG = {TIME_RES, STEPS, CFG_INPUT, CFG_OUTPUT, CFG_CLEAR, TARGET_NET, SOURCE_NET,
          CFG_PARAMETER, CFG_SCOPE, DEREGISTER, PREPARE}
ALLOWED = {
    ALIVE: {REGISTER},
    CONFIGURATION: CONFIG,
    PREPARED: {CONFIGURE, STOP},
    CONFIGURED: {INITIALIZE, RUN, STOP},
    INITIALIZED: {SEND_OUTPUTS, STOP},
    SYNCHRONIZED: {RUN, DO_STEP, STOP},
    RUNNING: {DO_STEP, STOP},
    COMPUTED: {SEND_OUTPUTS, STOP},
    STOPPED: {DEREGISTER, RESET},
}
UUID = bytes.fromhex("6f1c2d3e4a5b46c7d8e9f0a1b2c3d4e5")
VARIABLES = {1: ('x', 9), 2: ('u', 9), 3: ('gain', 6), 4: ('count', 6), 5: ('offset', 9)}
INPUTS, OUTPUTS = {2, 3}, {1, 4}


class Slave:
    def __init__(self, options):
        self.options = options
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", options.port))
        self.state = ALIVE
        self.last_seq = 0
        self.me = 0
        self.master = None
        self.values = {1: 0.0, 2: 0.0, 3: 1, 4: 0, 5: 0.0}
        self.inputs, self.outputs = {}, {}
        self.target = None
        self.resolution = None
        self.out_seq = 0
        self.steps_done = 0
        self.mode = 2
        self.output_steps = 1
        self.lock = threading.Lock()
        self.ticker = None
        self.ticking = False
        self.outputs_sent = 0

    def send(self, data, to):
        for _ in range(2 if self.options.duplicate else 1):
            self.sock.sendto(data, to)

    def notify(self, state):
        self.state = state
        self.send(struct.pack('<BBB', NTF_STATE_CHANGED, self.me, state), self.master)

    def ack(self, seq, to):
        self.send(struct.pack('<BHB', RSP_ACK, seq, self.me), to)

    def nack(self, seq, error, to):
        expected = (self.last_seq + 1) & 0xFFFF
        self.send(struct.pack('<BHBHH', RSP_NACK, seq, self.me, expected, error), to)

    def send_outputs(self):
        if not self.outputs:
            return
        self.outputs_sent += 1
        if self.options.silent_after and self.outputs_sent > self.options.silent_after + 1:
            return  # the first PDU holds the initial outputs
        payload = b''.join(struct.pack('<' + FORMATS[VARIABLES[vr][1]],
                                       self.values[vr] if VARIABLES[vr][1] >= 8
                                       else int(self.values[vr]))
                           for _, vr in sorted(self.outputs.items()))
        self.send(struct.pack('<BHH', DAT, self.out_seq, 2) + payload, self.target)
        self.out_seq = (self.out_seq + 1) & 0xFFFF

    def take_inputs(self, pdu):
        offset = 5
        for _, (vr, source_type) in sorted(self.inputs.items()):
            fmt = '<' + FORMATS[source_type]
            size = struct.calcsize(fmt)
            if offset + size > len(pdu):
                return
            self.values[vr] = struct.unpack_from(fmt, pdu, offset)[0]
            offset += size

    def tick(self):
        """SoftRealTime: one step of the time resolution per tick, on this
        process's clock from STC_run on; the outputs every CFG_steps ticks."""
        start, ticks = time.monotonic(), 0
        while self.ticking:
            with self.lock:
                self.values[1] += self.values[3] * self.values[2] * self.resolution
                self.values[4] += 1
                ticks += 1
                if ticks % self.output_steps == 0:
                    self.send_outputs()
            time.sleep(max(0.0, start + ticks * self.resolution - time.monotonic()))

    def serve(self):
        print("READY", self.sock.getsockname()[1], flush=True)
        while True:
            pdu, sender = self.sock.recvfrom(65536)
            with self.lock:
                if self.handle(pdu, sender) == 'exit':
                    return

    def handle(self, pdu, sender):
        kind = pdu[0]
        if kind == DAT:
            if self.state >= CONFIGURED and len(pdu) >= 5:
                self.take_inputs(pdu)
            return
        if len(pdu) < 4:
            return
        seq, receiver = struct.unpack_from('<HB', pdu, 1)
        if self.state != ALIVE and receiver != self.me:
            return
        if self.state != ALIVE and seq != (self.last_seq + 1) & 0xFFFF:
            return self.nack(seq, INVALID_SEQUENCE_ID, sender)
        if kind in SIZES and len(pdu) != SIZES[kind]:
            return self.nack(seq, INVALID_LENGTH, sender)
        if kind == INF_STATE:
            self.last_seq = seq
            return self.send(struct.pack('<BHBB', RSP_STATE_ACK, seq, self.me, self.state), sender)
        if kind not in ALLOWED.get(self.state, set()):
            return self.nack(seq, NOT_ALLOWED, sender)
        if kind <= RESET and pdu[4] != self.state:
            return self.nack(seq, INVALID_STATE_ID, sender)
        if kind == REGISTER:
            _, _, _, _, uuid, mode, major, minor = struct.unpack('<BHBB16sBBB', pdu)
            if uuid != UUID:
                return self.nack(seq, INVALID_UUID, sender)
            if mode not in (1, 2) or (major, minor) != (1, 0):
                return self.nack(seq, INVALID_OP_MODE, sender)
            self.me, self.master, self.last_seq, self.mode = receiver, sender, seq, mode
            self.ack(seq, sender)
            return self.notify(CONFIGURATION)
        if kind == DO_STEP and self.mode != 2:
            return self.nack(seq, NOT_SUPPORTED_PDU, sender)
        if kind == DO_STEP:
            self.steps_done += 1
            n = self.steps_done
            if n == self.options.die_at_step:
                return 'exit'
            steps = struct.unpack_from('<I', pdu, 5)[0]
            if n == self.options.nack_step or not 1 <= steps <= 1000:
                return self.nack(seq, INVALID_STEPS, sender)
            self.last_seq = seq
            if n == self.options.garble_ack:
                self.send(bytes([RSP_ACK, 0x01]), sender)
            elif n != self.options.drop_ack:
                self.ack(seq, sender)
            self.notify(COMPUTING)
            dt = steps * self.resolution
            self.values[1] += self.values[3] * self.values[2] * dt
            self.values[4] += 1
            return self.notify(COMPUTED)
        self.last_seq = seq
        if kind == CFG_INPUT:
            data_id, pos, vr, source_type = struct.unpack_from('<HHQB', pdu, 4)
            if vr not in INPUTS or source_type != VARIABLES[vr][1]:
                self.last_seq = seq - 1
                return self.nack(seq, INVALID_VALUE_REFERENCE, sender)
            self.inputs[pos] = (vr, source_type)
        elif kind == CFG_OUTPUT:
            data_id, pos, vr = struct.unpack_from('<HHQ', pdu, 4)
            if vr not in OUTPUTS:
                self.last_seq = seq - 1
                return self.nack(seq, INVALID_VALUE_REFERENCE, sender)
            self.outputs[pos] = vr
        elif kind == CFG_PARAMETER:
            vr, source_type = struct.unpack_from('<QB', pdu, 4)
            self.values[vr] = struct.unpack_from('<' + FORMATS[source_type], pdu, 13)[0]
        elif kind == STEPS:
            self.output_steps = struct.unpack_from('<I', pdu, 4)[0]
        elif kind == TIME_RES:
            numerator, denominator = struct.unpack_from('<II', pdu, 4)
            self.resolution = numerator / denominator
        elif kind in (TARGET_NET, SOURCE_NET):
            data_id, protocol, port, address = struct.unpack_from('<HBHI', pdu, 4)
            if kind == TARGET_NET:
                self.target = (socket.inet_ntoa(struct.pack('>I', address)), port)
            elif port != self.sock.getsockname()[1]:
                self.last_seq = seq - 1
                return self.nack(seq, INVALID_NETWORK_INFORMATION, sender)
        self.ack(seq, sender)
        if kind == PREPARE:
            self.notify(PREPARING)
            self.notify(PREPARED)
        elif kind == CONFIGURE:
            self.notify(CONFIGURING)
            self.notify(CONFIGURED)
        elif kind == INITIALIZE:
            self.notify(INITIALIZING)
            self.values[1] = self.values[5]
            self.notify(INITIALIZED)
        elif kind == SEND_OUTPUTS:
            back = CONFIGURED if self.state == INITIALIZED else RUNNING
            self.notify(SENDING_I if back == CONFIGURED else SENDING_D)
            self.send_outputs()
            self.notify(back)
        elif kind == RUN:
            if self.state == CONFIGURED:
                self.notify(SYNCHRONIZING)
                if self.mode == 1:
                    self.ticking = True
                    self.ticker = threading.Thread(target=self.tick, daemon=True)
                    self.ticker.start()
                self.notify(SYNCHRONIZED)
            else:
                self.notify(RUNNING)
        elif kind == STOP:
            self.ticking = False
            self.notify(STOPPING)
            self.notify(STOPPED)
        elif kind == DEREGISTER:
            self.notify(ALIVE)
            return 'exit'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, default=0)
    for fault in ('nack-step', 'drop-ack', 'garble-ack', 'die-at-step', 'silent-after'):
        parser.add_argument('--' + fault, type=int, default=0)
    parser.add_argument('--duplicate', action='store_true')
    Slave(parser.parse_args()).serve()


if __name__ == '__main__':
    sys.exit(main())
