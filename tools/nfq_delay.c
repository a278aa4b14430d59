/* colltune-nfq-delay: holds every packet of one NFQUEUE for a fixed delay, then accepts it, in
 * arrival order. The per-host delay of scripts/hetcluster (this kernel has no netem):
 *   iptables-legacy -A INPUT -i veth0 -j NFQUEUE --queue-num Q --queue-bypass
 *   colltune-nfq-delay Q DELAY_US
 * Only packet metadata is copied from the kernel; the queue fails open when full (packets pass
 * undelayed rather than being dropped). Exits on SIGTERM/SIGINT. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#define RING 65536

static struct {
  uint32_t id;
  int64_t release_ns;
} ring[RING];
static unsigned head, tail; /* ring[head..tail) pending, FIFO */
static int64_t delay_ns;
static volatile sig_atomic_t stop;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int on_packet(struct nfq_q_handle* qh, struct nfgenmsg* msg, struct nfq_data* nfa,
                     void* data) {
  (void)msg;
  (void)data;
  struct nfqnl_msg_packet_hdr* ph = nfq_get_msg_packet_hdr(nfa);
  if (!ph) return 0;
  const uint32_t id = ntohl(ph->packet_id);
  if (tail - head >= RING) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL); /* full */
  ring[tail % RING].id = id;
  ring[tail % RING].release_ns = now_ns() + delay_ns;
  ++tail;
  return 0;
}

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: colltune-nfq-delay QUEUE_NUM DELAY_US\n");
    return 2;
  }
  const int queue = atoi(argv[1]);
  delay_ns = (int64_t)(atof(argv[2]) * 1000.0);
  if (queue < 0 || queue > 65535 || delay_ns < 0 || delay_ns > 10000000000LL) {
    fprintf(stderr, "colltune-nfq-delay: queue 0..65535 and delay 0..10000000 us\n");
    return 2;
  }
  prctl(PR_SET_TIMERSLACK, 1UL); /* wake up on time, not up to 50 us late */
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  struct nfq_handle* h = nfq_open();
  if (!h) {
    perror("colltune-nfq-delay: nfq_open");
    return 1;
  }
  struct nfq_q_handle* qh = nfq_create_queue(h, (uint16_t)queue, on_packet, NULL);
  if (!qh) {
    fprintf(stderr, "colltune-nfq-delay: cannot bind queue %d\n", queue);
    return 1;
  }
  nfq_set_mode(qh, NFQNL_COPY_META, 0);
  nfq_set_queue_maxlen(qh, RING);
  nfq_set_queue_flags(qh, NFQA_CFG_F_FAIL_OPEN, NFQA_CFG_F_FAIL_OPEN);
  const int fd = nfq_fd(h);
  int rcvbuf = 8 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
  char buf[8192] __attribute__((aligned));
  while (!stop) {
    struct timespec timeout = {1, 0};
    if (head != tail) {
      int64_t wait = ring[head % RING].release_ns - now_ns();
      if (wait < 0) wait = 0;
      timeout.tv_sec = wait / 1000000000;
      timeout.tv_nsec = wait % 1000000000;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    const int r = ppoll(&p, 1, &timeout, NULL);
    if (r < 0 && errno != EINTR) break;
    if (r > 0 && (p.revents & POLLIN)) {
      for (;;) {
        const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n <= 0) break;
        nfq_handle_packet(h, buf, (int)n);
      }
    }
    const int64_t t = now_ns();
    while (head != tail && ring[head % RING].release_ns <= t) {
      nfq_set_verdict(qh, ring[head % RING].id, NF_ACCEPT, 0, NULL);
      ++head;
    }
  }
  while (head != tail) nfq_set_verdict(qh, ring[head++ % RING].id, NF_ACCEPT, 0, NULL);
  nfq_destroy_queue(qh);
  nfq_close(h);
  return 0;
}
