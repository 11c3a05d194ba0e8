#!/usr/bin/env python3
# Generate RoCEv2 ICRC test vectors independently of the C code:
# ICRC = zlib.crc32(8 x 0xff + masked IP/UDP/BTH headers + payload),
# stored little endian after the payload.
import struct, zlib

def bth(opcode, qpn, psn, resv8a=0x5a):
    return struct.pack('>BBH', opcode, 0x40, 0xffff) + bytes([resv8a]) + \
        qpn.to_bytes(3, 'big') + struct.pack('>I', (1 << 31) | psn)

def v4(payload):
    b = bth(0x04, 0x000123, 0x00abcd) + payload   # RC SEND only
    udp_len = 8 + len(b) + 4
    udp = struct.pack('>HHHH', 0xc0de, 4791, udp_len, 0x1234)
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0x02, 20 + udp_len, 0x7777, 0x4000,
                     64, 17, 0xbeef, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    m_ip = bytearray(ip); m_ip[1] = 0xff; m_ip[8] = 0xff; m_ip[10:12] = b'\xff\xff'
    m_udp = bytearray(udp); m_udp[6:8] = b'\xff\xff'
    m_b = bytearray(b); m_b[4] = 0xff
    icrc = zlib.crc32(b'\xff' * 8 + bytes(m_ip) + bytes(m_udp) + bytes(m_b))
    eth = bytes.fromhex('525400123456' '525400abcdef' '0800')
    return eth + ip + udp + b + struct.pack('<I', icrc), icrc

def v6(payload):
    b = bth(0x0a, 0x000042, 0x000001, resv8a=0x00) + payload   # RC RDMA WRITE only (no RETH: ICRC only)
    udp_len = 8 + len(b) + 4
    udp = struct.pack('>HHHH', 0xd00d, 4791, udp_len, 0xabcd)
    first = (6 << 28) | (0xb8 << 20) | 0x12345
    ip = struct.pack('>IHBB16s16s', first, udp_len, 17, 33,
                     bytes.fromhex('fe80000000000000505400fffe123456'),
                     bytes.fromhex('fe80000000000000505400fffeabcdef'))
    m_ip = bytearray(ip); m_ip[0] |= 0x0f; m_ip[1:4] = b'\xff\xff\xff'; m_ip[7] = 0xff
    m_udp = bytearray(udp); m_udp[6:8] = b'\xff\xff'
    m_b = bytearray(b); m_b[4] = 0xff
    icrc = zlib.crc32(b'\xff' * 8 + bytes(m_ip) + bytes(m_udp) + bytes(m_b))
    eth = bytes.fromhex('525400123456' '525400abcdef' '86dd')
    return eth + ip + udp + b + struct.pack('<I', icrc), icrc

def c_array(name, data):
    lines = []
    for i in range(0, len(data), 12):
        lines.append('    ' + ', '.join('0x%02x' % x for x in data[i:i + 12]) + ',')
    return 'static const uint8_t %s[%d] = {\n%s\n};' % (name, len(data), '\n'.join(lines))

FRAME_V4, ICRC_V4 = v4(bytes(range(32)))
FRAME_V6, ICRC_V6 = v6(b'RoCEv2 over IPv6!')

if __name__ == '__main__':
    print(c_array('frame_v4', FRAME_V4)); print('#define ICRC_V4 0x%08xu' % ICRC_V4)
    print(c_array('frame_v6', FRAME_V6)); print('#define ICRC_V6 0x%08xu' % ICRC_V6)
