package main

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"unsafe"
)

const (
	tunSetIff = 0x400454ca // TUNSETIFF
	iffTun    = 0x0001
	iffNoPi   = 0x1000
)

// openTun attaches to the (persistent) TUN device name and returns its fd.
// IFF_NO_PI: packets are bare IP, without the 4-byte packet information header.
func openTun(name string) (int, error) {
	if len(name) >= syscall.IFNAMSIZ {
		return -1, fmt.Errorf("tun name %q too long", name)
	}
	fd, err := syscall.Open("/dev/net/tun", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open /dev/net/tun: %w", err)
	}
	var ifreq [40]byte // struct ifreq: name[IFNAMSIZ], then the flags short
	copy(ifreq[:], name)
	binary.NativeEndian.PutUint16(ifreq[syscall.IFNAMSIZ:], iffTun|iffNoPi)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), tunSetIff, uintptr(unsafe.Pointer(&ifreq[0]))); errno != 0 {
		syscall.Close(fd)
		return -1, fmt.Errorf("TUNSETIFF %s: %w", name, errno)
	}
	return fd, nil
}
